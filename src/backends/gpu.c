/*
 * gpu.c - what the GPU-like backends (CUDA, HIP, OpenCL) share: each
 * top-level @outer loop becomes a device kernel whose blocks are the
 * @outer iterations and whose threads are the @inner ones, and a host
 * launcher computes the grid and the block from the loop bounds and runs
 * the device kernels in order (docs/launchers.md).
 *
 * In a device kernel:
 *   @outer loop   `T i = start + stride * blockIdx.a;` around its body
 *   @inner loop   `T i = start + stride * threadIdx.a;` and, when the block
 *                 may have more threads than the loop iterations, a guard
 *   @tile         the index of the tile, then the index in it (the bound
 *                 check unless check=false)
 *   @shared       the target's shared memory
 *   @exclusive    a variable of each thread: nothing to do
 *   @barrier      the target's barrier; also between @inner loops of a
 *                 block that has @shared memory (unless @nobarrier)
 *   @atomic       the target's atomic operations (cuda.c, opencl.c)
 *   return, continue in an @outer or @inner loop: a jump to the end of
 *                 the iteration, since the loop is gone
 * Functions become device functions; statements before an @outer loop run
 * in each device kernel that uses them, and in the launcher when the loop
 * bounds need them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "../analysis/analysis.h"

void oklc_gpu_error(Gpu *G, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    oklc_model_verror(G->E->c, off, fmt, ap);
    va_end(ap);
    G->ok = false;
}

static const char *render(Gpu *G, Range r)
{
    return oklc_edits_text(&G->E->ed, r.begin, r.end);
}

static const char *op(Gpu *G, const char *s)
{
    return oklc_emit_operand(G->E, s);
}

/* ---- variables: who reads what ---------------------------------------------------------- */

static const Var *iterator_var(const Kernel *k, const Loop *l)
{
    for (size_t i = 0; i < k->nlocals; i++)
        if (k->locals[i]->name_off == l->iter_off)
            return k->locals[i];
    return NULL;
}

/* ---- the nest's shape: grid and block ----------------------------------------------------- */

typedef struct Nest {
    const Loop *top;             /* the top-level @outer loop */
    const Loop *outer[3];        /* the (first) @outer loop on each axis */
    VEC(const Loop *) level_loops[3];   /* every @outer loop on each axis */
    const char *grid[3];         /* iteration counts, as expressions ("1": unused) */
    int64_t     ngrid[3];        /* when constant, else -1 */
    const char *block[3];        /* threads per axis: an expression */
    int64_t     nblock[3];       /* when constant, else -1 */
    VEC(Range)  bounds;          /* the headers the launcher computes from */
    const LaunchCheck *checks;   /* what the launcher tests first */
    size_t      nchecks;
} Nest;

typedef VEC(const char *) Texts;

/* Collects the @inner loops of the nest and the largest count per axis. */
static void inner_counts(Gpu *G, const Loop *l, Nest *n, Texts *exprs)
{
    if (l->kind == LOOP_INNER && l->axis >= 0 && l->axis < 3) {
        int a = l->axis;
        if (l->trips_known) {
            if (n->nblock[a] >= 0 && l->ntrips > n->nblock[a])
                n->nblock[a] = l->ntrips;
        } else {
            vec_push(G->a, &exprs[a], l->trips_wide);
            n->nblock[a] = -1;
        }
        vec_push(G->a, &n->bounds, l->header);
    }
    for (size_t i = 0; i < l->nkids; i++)
        inner_counts(G, l->kids[i], n, exprs);
}

/* The @outer loops of a nest are the grid, one axis per level, and the
 * loops of one level side by side (in plain loops or conditions of the
 * level above) share its axis: its size is the largest of their counts,
 * and a loop with fewer iterations has a guard. The grid is rectangular:
 * no @outer loop's range uses the iterator of one around it. */
static bool outer_levels(Gpu *G, Nest *n, const Loop *l, unsigned used)
{
    if (l->axis < 0 || l->axis > 2 || (used & (1u << l->axis))) {
        oklc_gpu_error(G, l->stmt.begin, "@outer loop with an axis the nest uses already");
        return false;
    }
    if (n->outer[l->axis] && n->outer[l->axis]->level != l->level) {
        oklc_gpu_error(G, l->stmt.begin, "on GPUs the @outer loops side by side in a nest "
                       "share an axis: this one's axis is that of the @outer loop at line %u",
                       oklc_model_line(G->E->c, n->outer[l->axis]->stmt.begin));
        return false;
    }
    if (!n->outer[l->axis])
        n->outer[l->axis] = l;
    vec_push(G->a, &n->level_loops[l->axis], l);
    vec_push(G->a, &n->bounds, l->header);
    for (const Loop *o = l->parent; o; o = o->parent) {
        /* (the two levels of a @tile share one header) */
        const Var *it = o != l->tile_other ? iterator_var(G->k, o) : NULL;
        if (it && oklc_refers_in(it, l->header)) {
            oklc_gpu_error(G, l->stmt.begin,
                           "on GPUs the @outer loops of a nest are a grid: this loop's "
                           "bounds cannot use '%s', the iterator of an enclosing @outer "
                           "loop",
                           it->name);
            return false;
        }
    }
    for (size_t i = 0; i < l->nkids; i++)
        if (l->kids[i]->kind == LOOP_OUTER &&
            !outer_levels(G, n, l->kids[i], used | (1u << l->axis)))
            return false;
    return true;
}

/* Each axis of the grid: the largest count of its @outer loops. */
static void grid_sizes(Gpu *G, Nest *n)
{
    for (int a = 0; a < 3; a++) {
        const Loop *const *ls = (const Loop *const *)n->level_loops[a].data;
        size_t nl = n->level_loops[a].len;
        n->ngrid[a] = nl ? -1 : 1;
        if (!nl)
            continue;
        int64_t known = 0;
        bool all = true;
        for (size_t i = 0; i < nl; i++) {
            all &= ls[i]->trips_known;
            if (ls[i]->trips_known && ls[i]->ntrips > known)
                known = ls[i]->ntrips;
        }
        if (all && nl > 1) {
            n->ngrid[a] = known;
            n->grid[a] = oklc_arena_printf(G->a, "%lld", (long long)known);
            continue;
        }
        const char *g = ls[0]->trips_wide ? ls[0]->trips_wide : "0";
        for (size_t i = 1; i < nl; i++)
            g = oklc_arena_printf(G->a, "_occa_max(_occa_count(%s), _occa_count(%s))", g,
                                  ls[i]->trips_wide ? ls[i]->trips_wide : "0");
        n->grid[a] = g;
    }
}

/* Inner counts must be known where the launcher runs: from the kernel's
 * arguments, not from the @outer iterators or the nest's variables. */
static bool launcher_can_count(Gpu *G, const Nest *n, const Loop *inner_top)
{
    for (size_t j = 0; j < G->k->nloops; j++) {
        const Loop *l = G->k->loops[j];
        const Var *v = l->kind == LOOP_INNER && !l->trips_known &&
                               oklc_in_range(n->top->stmt, l->stmt.begin)
                           ? oklc_emit_nest_var(G->k, n->top, l) : NULL;
        if (v) {
            oklc_gpu_error(G, l->stmt.begin,
                           "on GPUs the number of threads of a block is set at launch: this "
                           "@inner loop's count uses '%s', which depends on the block; give "
                           "the @outer loop at line %u @max_inner_dims(...)",
                           v->name, oklc_model_line(G->E->c, inner_top->stmt.begin));
            return false;
        }
    }
    return true;
}

/* A block of known size larger than every device of the target runs. */
static bool block_fits(Gpu *G, const Nest *n)
{
    int64_t threads = 1;
    if (n->top->max_inner_dims)
        return true;                  /* bounds the user gave: checked at launch */
    for (int a = 0; a < 3; a++) {
        if (n->nblock[a] < 0)
            return true;              /* known at launch: the device checks it */
        threads *= n->nblock[a] > G->T->max_block ? G->T->max_block + 1 : n->nblock[a];
    }
    if (!G->T->max_block || threads <= G->T->max_block)
        return true;
    oklc_gpu_error(G, n->top->stmt.begin, "the @inner loops of this nest run %lld x %lld x %lld "
                   "threads in a block; the %s backend's devices run at most %lld",
                   (long long)n->nblock[0], (long long)n->nblock[1], (long long)n->nblock[2],
                   G->E->be->name, (long long)G->T->max_block);
    return false;
}

static bool nest_shape(Gpu *G, Nest *n)
{
    for (int a = 0; a < 3; a++)
        n->grid[a] = "1", n->block[a] = "1", n->nblock[a] = 1;
    if (!outer_levels(G, n, n->top, 0))
        return false;
    grid_sizes(G, n);
    n->nchecks = oklc_emit_launch_checks(G->E, G->k, n->top, &n->checks);
    for (size_t i = 0; i < n->nchecks; i++)
        vec_push(G->a, &n->bounds, n->checks[i].loop->header);
    const Loop *inner_top = n->outer[0] ? n->outer[0] : n->top;
    const Attr *mid = n->top->max_inner_dims;
    if (mid) {                 /* @max_inner_dims(x, y, z): the block as given */
        int64_t sizes[3];
        bool known = oklc_model_sizes(mid, sizes);
        for (int a = 0; a < mid->nargs && a < 3; a++) {
            n->block[a] = mid->args[a].text;
            n->nblock[a] = known ? sizes[a] : -1;
        }
        return true;
    }
    Texts exprs[3];
    memset(exprs, 0, sizeof exprs);
    for (size_t i = 0; i < G->k->nloops; i++) {
        const Loop *l = G->k->loops[i];
        if (l->kind == LOOP_INNER && l->parent && l->parent->kind == LOOP_OUTER &&
            oklc_in_range(n->top->stmt, l->stmt.begin))
            inner_counts(G, l, n, exprs);
    }
    if (!launcher_can_count(G, n, inner_top))
        return false;
    for (int a = 0; a < 3; a++) {
        long long known = 1;
        for (size_t i = 0; i < G->k->nloops; i++) {
            const Loop *l = G->k->loops[i];
            if (l->kind == LOOP_INNER && l->axis == a && l->trips_known && l->ntrips > known &&
                oklc_in_range(n->top->stmt, l->stmt.begin))
                known = l->ntrips;
        }
        const char *b = oklc_arena_printf(G->a, "%lld", known);
        for (size_t i = 0; i < exprs[a].len; i++)
            b = oklc_arena_printf(G->a, "_occa_max(%s, _occa_count(%s))", b, exprs[a].data[i]);
        n->block[a] = b;
        if (!exprs[a].len)
            n->nblock[a] = known;
    }
    return true;
}

/* ---- loops as indices ---------------------------------------------------------------------- */

static const char *index_of(Gpu *G, const Loop *l)
{
    return l->kind == LOOP_OUTER ? G->T->block_index[l->axis] : G->T->thread_index[l->axis];
}

/* "T i = start + stride * idx;" (decreasing loops subtract). */
static const char *value_decl(Gpu *G, const Loop *l, const char *name, const char *start,
                              const char *stride, const char *idx)
{
    const char *scaled = !strcmp(stride, "1")
                             ? idx : oklc_arena_printf(G->a, "%s * %s", op(G, stride), idx);
    const char *value = !strcmp(start, "0") && !l->down
                            ? scaled
                            : oklc_arena_printf(G->a, "%s %s %s", op(G, start),
                                                l->down ? "-" : "+", scaled);
    return oklc_arena_printf(G->a, "%s %s = %s;", oklc_emit_iter_type(G->E, l), name, value);
}

/* The iterator of the loop's thread (block): "T i = start + stride * threadIdx.x;". */
static const char *index_decl(Gpu *G, const Loop *l, const char *name, const char *start,
                              const char *stride)
{
    return value_decl(G, l, name, start, stride, index_of(G, l));
}

/* The loop's threads (blocks, for an @outer loop) may outnumber its
 * iterations: the block (grid) is larger on this axis, or the count is not
 * known. */
static bool needs_guard(const Nest *n, const Loop *l)
{
    if (l->kind == LOOP_OUTER)                 /* a shorter one of its level */
        return n->level_loops[l->axis].len > 1 &&
               !(l->trips_known && n->ngrid[l->axis] >= 0 && l->ntrips == n->ngrid[l->axis]);
    if (l->kind != LOOP_INNER)
        return false;
    int64_t b = n->nblock[l->axis];
    return !(l->trips_known && b >= 0 && l->ntrips == b);
}

static const char *guard_of(Gpu *G, const Nest *n, const Loop *l)
{
    const char *g = NULL;
    if (l->tile_part == 2) {
        const Loop *t = l->tile_other;
        if (needs_guard(n, t))                  /* more threads than tiles */
            g = oklc_arena_printf(G->a, "%s < %s", index_of(G, t), op(G, t->trips));
        if (needs_guard(n, l)) {
            const char *c = oklc_arena_printf(G->a, "%s < %s", index_of(G, l),
                                              op(G, l->tile_size));
            g = g ? oklc_arena_printf(G->a, "%s && %s", g, c) : c;
        }
        if (l->tile_check && !l->tile_exact) {
            Cmp cmp = l->cmp == CMP_NE ? (l->down ? CMP_GT : CMP_LT) : l->cmp;
            const char *c = oklc_arena_printf(G->a, "%s %s %s", l->iter, oklc_cmp_spelling(cmp),
                                              op(G, l->bound));
            g = g ? oklc_arena_printf(G->a, "%s && %s", g, c) : c;
        }
        return g;
    }
    if (!needs_guard(n, l))
        return NULL;
    if (l->cmp == CMP_NE)
        return oklc_arena_printf(G->a, "%s < %s", index_of(G, l), op(G, l->trips));
    return render(G, l->cond);
}

/* An @inner loop under @max_inner_dims whose count the nest's variables
 * give (an @outer iterator, a value the block read): only the device sees
 * whether the block has a thread for each iteration. Every thread tests
 * whether the iteration after the block's last exists, and marks the
 * loop's fault if so; the runtime reads the marks after the launch and
 * fails with the loop's message (docs/launchers.md). */
static const char *fault_check(Gpu *G, const Nest *n, const Loop *l)
{
    if (!oklc_emit_device_checked(G->k, n->top, l))
        return "";
    if (!G->T->fault_param) {
        oklc_gpu_error(G, l->stmt.begin, "the %s backend cannot report at run time an @inner "
                       "loop with more iterations than the threads of its block: give this "
                       "loop a count the kernel's arguments give", G->E->be->name);
        return "";
    }
    size_t id = G->faults.len;
    vec_push(G->a, &G->faults, oklc_emit_fault(G->E, n->top, l));
    const char *mark = oklc_arena_printf(G->a, "_occa_faults[%zu] = 1;", id);
    const char *b = op(G, oklc_emit_inner_max(n->top, l));
    if (l->tile_part || l->cmp == CMP_NE)
        return oklc_arena_printf(G->a, "if (%s < %s) %s ", b,
                                 op(G, l->tile_part == 2 ? l->tile_size : l->trips), mark);
    return oklc_arena_printf(G->a, "{ %s if (%s) %s } ",
                             value_decl(G, l, l->iter, l->start, l->stride, b),
                             render(G, l->cond), mark);
}

/* The for statement's header becomes the indices of its levels (one, or
 * the two of a @tile), and a guard; the loop's body stays. */
/* @tile(S, @inner): the tiles are threads, the elements of a tile a loop
 * in each. */
static void tile_of_threads(Gpu *G, const Nest *n, const Loop *l)
{
    const Loop *t = l->tile_other;
    const char *ind = oklc_emit_indent(G->E, l->stmt.begin);
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_printf(&b, "{ %s%s", fault_check(G, n, t),
                    index_decl(G, t, oklc_arena_printf(G->a, "_occa_tiled_%s", l->iter),
                               t->start, t->stride));
    if (needs_guard(n, t))
        oklc_buf_printf(&b, " if (%s < %s)", index_of(G, t), op(G, t->trips));
    oklc_buf_printf(&b, " { %s%s%s", oklc_emit_tile_end(G->E, l), l->tile_check ? " " : "",
                    oklc_emit_tile_loop(G->E, l));
    oklc_edit_replace(&G->E->ed, l->stmt.begin, l->header.end, b.data);
    oklc_edit_after(&G->E->ed, l->stmt.end, oklc_arena_printf(G->a, "\n%s}}", ind));
}

static void loop_edits(Gpu *G, const Nest *n, const Loop *l)
{
    if (l->tile_part == 2 && l->kind == LOOP_REGULAR && l->tile_other->kind != LOOP_REGULAR) {
        tile_of_threads(G, n, l);
        return;
    }
    if (l->kind == LOOP_REGULAR || l->tile_part == 1)
        return;                           /* a @tile is done at its second level */
    const char *ind = oklc_emit_indent(G->E, l->stmt.begin);
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_puts(&b, "{ ");
    oklc_buf_puts(&b, fault_check(G, n, l));
    if (l->tile_part == 2)                     /* (the tiles' count) */
        oklc_buf_puts(&b, fault_check(G, n, l->tile_other));
    if (l->tile_part == 2) {
        const Loop *t = l->tile_other;
        const char *tv = oklc_arena_printf(G->a, "_occa_tiled_%s", l->iter);
        oklc_buf_printf(&b, "%s ", index_decl(G, t, tv, t->start, t->stride));
        oklc_buf_puts(&b, index_decl(G, l, l->iter, tv, l->stride));
    } else {
        oklc_buf_puts(&b, index_decl(G, l, l->iter, l->start, l->stride));
    }
    const char *guard = guard_of(G, n, l);
    if (guard) {
        if (l->kind == LOOP_INNER && l->node && l->node->has_barrier) {
            oklc_gpu_error(G, l->stmt.begin,
                           "on GPUs the threads of this @inner loop are not all in it (the "
                           "block has %s), and the @barrier inside cannot wait for the others; "
                           "give the @inner loops of the block the same count",
                           l->trips_known ? "more threads than its iterations"
                                          : "a number of threads set at launch");
            return;
        }
        oklc_buf_printf(&b, " if (%s)", guard);
    }
    oklc_edit_replace(&G->E->ed, l->stmt.begin, l->header.end, b.data);
    oklc_edit_after(&G->E->ed, l->stmt.end, oklc_arena_printf(G->a, "\n%s}", ind));
}

/* ---- unrolling --------------------------------------------------------------------------------- */

/* @unroll(n) on a loop that stays a loop. */
static void unroll_attrs(Gpu *G)
{
    for (size_t i = 0; i < G->k->nloops; i++) {
        const Loop *l = G->k->loops[i];
        if (l->unroll && l->kind == LOOP_REGULAR && !l->tile_part)
            oklc_emit_pragma_before(G->E, l->attrs, l->nattrs, l->stmt.begin,
                                    G->T->unroll(G->a, l->unroll->nargs
                                                           ? l->unroll->args[0].text : ""));
    }
}

/* `#pragma unroll n` lines, in the target's spelling. */
static void unroll_pragma(Edits *ed, Range line, const char *args, void *data)
{
    Emit *E = data;
    const char *count = oklc_emit_unroll_count(args);
    if (count)
        oklc_edit_replace(ed, line.begin, line.end, E->be->gpu->unroll(&E->c->arena, count));
}

/* ---- barriers, shared memory, atomics ------------------------------------------------------------- */

/* A barrier the analysis left out: its statement goes (its line too), or
 * becomes an empty one where a statement must stand (if (c) @barrier;). */
static void dropped_barrier(Gpu *G, const Barrier *br)
{
    const Stmt *st = br->node;
    const SpecRange *spec = oklc_emit_spec_of(G->E, br->attr);
    if (st && st->parent && st->parent->kind == ST_COMPOUND && spec)
        oklc_emit_delete_stmt(G->E, spec->off, br->stmt.end);
    else
        oklc_edit_replace(&G->E->ed, br->stmt.begin, br->stmt.end, ";");
}

static void explicit_barriers(Gpu *G)
{
    for (size_t i = 0; i < G->k->nbarriers; i++) {
        const Barrier *br = G->k->barriers[i];
        const char *what = br->kind == BARRIER_WARP ? G->T->warp_barrier : G->T->barrier;
        if (br->dropped)        /* the analysis found it separates nothing */
            dropped_barrier(G, br);
        else if (br->after_call)     /* after the call of a function that ends with it */
            oklc_edit_after(&G->E->ed, br->stmt.begin, oklc_arena_printf(G->a, " %s", what));
        else
            oklc_edit_replace(&G->E->ed, br->stmt.begin, br->stmt.end, what);
    }
}

/* Between the @inner loops of a block with @shared memory, every thread
 * waits until all have written (analysis/flow.c says where). */
static void implicit_barriers(Gpu *G)
{
    for (size_t i = 0; i < G->k->nloops; i++) {
        const Loop *l = G->k->loops[i];
        if (oklc_implicit_barrier(G->k, l))
            oklc_edit_after(&G->E->ed, l->stmt.end,
                            oklc_arena_printf(G->a, "\n%s%s", oklc_emit_indent(G->E, l->stmt.begin),
                                              G->T->barrier));
    }
}

/* @shared: the target's shared memory. OpenCL wants it at the kernel's
 * top level: the declaration moves there (shared_decls collects it). */
static void shared_memory(Gpu *G, Buf *shared_decls)
{
    for (size_t i = 0; i < G->k->nlocals; i++) {
        const Var *v = G->k->locals[i];
        bool shared = v->shared || (v->typedef_var && v->typedef_var->shared);
        const Stmt *d = v->decl_stmt;
        if (!shared || !d || d->decls[0] != v)
            continue;                        /* once per declaration statement */
        if (v->init_form) {
            oklc_gpu_error(G, v->init.begin, "@shared memory cannot have an initializer: it "
                           "belongs to the whole block; assign it in an @inner loop");
            continue;
        }
        if (G->T->shared_decl) {
            G->T->shared_decl(G, d);
            continue;
        }
        if (!G->T->shared_on_top) {
            oklc_edit_before(&G->E->ed, d->range.begin,
                             oklc_arena_printf(G->a, "%s ", G->T->shared));
            continue;
        }
        oklc_buf_printf(shared_decls, "  %s %s\n", G->T->shared, render(G, d->range));
        oklc_emit_delete_stmt(G->E, d->range.begin, d->range.end);
    }
}

/* Memory of one thread: an @exclusive, a variable of an @inner loop. */
static bool thread_private(const Var *v)
{
    if (!v || v->kind != VAR_LOCAL || (v->type.pointer && !v->type.array))
        return false;
    if (v->exclusive || (v->typedef_var && v->typedef_var->exclusive))
        return true;
    for (const Loop *l = v->loop; l; l = l->parent)
        if (l->kind == LOOP_INNER)
            return true;
    return false;
}

void oklc_gpu_atomic_form_error(Gpu *G, const Atomic *at)
{
    oklc_gpu_error(G, at->stmt.begin, "this @atomic is not one the %s backend can write: use "
                   "x += v, x -= v, x *= v, x /= v, x++, x--, x &= v, x |= v, x ^= v, x = v, "
                   "x = min(x, v) or x = max(x, v)",
                   G->E->be->name);
}

const char *oklc_gpu_cas_loop(Gpu *G, const Atomic *at, const CasSpelling *sp,
                              const char *qual, const char *type, const char *x,
                              const char *v)
{
    const char *update = oklc_atomic_update(G->a, at, "_occa_v", type, "_occa_rhs");
    if (!update) {
        oklc_gpu_atomic_form_error(G, at);
        return NULL;
    }
    int w = at->size == 8;
    const char *bits = sp->bits[w];
    const char *to = at->is_float ? sp->to_bits[w] : oklc_arena_printf(G->a, "(%s)", bits);
    const char *from = at->is_float ? sp->from_bits[w] : oklc_arena_printf(G->a, "(%s)", type);
    return oklc_arena_printf(G->a,
        "{ %s%s%s *_occa_p = (%s%s *)&(%s); %s _occa_old = *_occa_p, _occa_was; "
        "do { _occa_was = _occa_old; const %s _occa_v = %s(_occa_was); "
        "_occa_old = %s(_occa_p, _occa_was, %s(%s)); } while (_occa_old != _occa_was); }",
        oklc_atomic_rhs(G->a, type, v), qual, bits, qual, bits, x, bits, type, from,
        sp->cas[w], to, update);
}

static void atomics(Gpu *G)
{
    for (size_t i = 0; i < G->k->natomics; i++) {
        const Atomic *at = G->k->atomics[i];
        if (at->block) {
            oklc_gpu_error(G, at->stmt.begin,
                           "the %s backend has no atomic blocks: write each update as an "
                           "@atomic expression (x += v, x++, x = v, ...)",
                           G->E->be->name);
            continue;
        }
        if (thread_private(at->target))
            continue;                        /* one thread owns it */
        if (at->op == AT_OTHER) {
            oklc_gpu_atomic_form_error(G, at);
            continue;
        }
        if (at->op == AT_ASSIGN && at->target && oklc_refers_in(at->target, at->rhs)) {
            oklc_gpu_error(G, at->stmt.begin,
                           "this @atomic reads '%s', which it writes: GPUs update atomically "
                           "with one operation; write it as x op= v (x += v, x *= v, ...)",
                           at->target->name);
            continue;
        }
        const char *s = G->T->atomic(G, at);
        if (s)
            oklc_edit_replace(&G->E->ed, at->stmt.begin, at->stmt.end, s);
    }
}

/* ---- device kernels ------------------------------------------------------------------------ */

/* The kernel's parameter list, "(...)" as written. */
static Range params_range(Gpu *G)
{
    const char *t = G->E->nz->text;
    uint32_t p = G->k->name_off + (uint32_t)strlen(G->k->name);
    while (p < G->k->decl.end && t[p] != '(')
        p++;
    int depth = 0;
    for (uint32_t q = p; q < G->k->decl.end; q++) {
        depth += t[q] == '(' ? 1 : t[q] == ')' ? -1 : 0;
        if (!depth)
            return (Range){p, q + 1};
    }
    return (Range){p, p};
}

/* ---- the host statements around the nests ---------------------------------------------------- */

/* The kernel body runs on the host, in the launcher, except the top-level
 * @outer loops (the nests): declarations, and statements (if, for, while,
 * do, switch, blocks) that hold nests, as legacy OCCA runs them. Each
 * nest's device kernel computes again the declarations it reads; those the
 * launcher needs it computes from the scalar arguments. */

typedef VEC(Range) Ranges;

static bool is_nest(const Kernel *k, const Stmt *s)
{
    for (size_t i = 0; i < k->nouters; i++)
        if (k->outers[i]->node == s)
            return true;
    return false;
}

/* A statement of the host that holds nests (not a nest itself). */
static bool holds_nests(const Kernel *k, const Stmt *s)
{
    if (is_nest(k, s) || s->kind == ST_DECL || s->kind == ST_NULL)
        return false;
    for (size_t i = 0; i < k->nouters; i++)
        if (oklc_in_range(s->range, k->outers[i]->stmt.begin))
            return true;
    return false;
}

/* What the host may run: declarations, nests and statements holding nests. */
static bool host_statements(Gpu *G, const Stmt *s)
{
    bool ok = true;
    for (size_t i = 0; i < s->nkids && ok; i++) {
        const Stmt *st = s->kids[i];
        if (holds_nests(G->k, st)) {
            ok = host_statements(G, st);
        } else if (st->kind != ST_DECL && st->kind != ST_NULL && !is_nest(G->k, st)) {
            oklc_gpu_error(G, st->range.begin,
                           "on GPUs only declarations, and statements that hold @outer loops, "
                           "may stand outside the @outer loops: the launcher runs them");
            ok = false;
        }
    }
    return ok;
}

/* What a nest's code sees: the declarations before it (in the kernel body
 * and in the blocks of the host statements around it), outermost first,
 * and those host statements. */
typedef struct Scope {
    VEC(const Stmt *) decls;
    VEC(const Stmt *) around;
} Scope;

static void reverse(const Stmt **v, size_t n)
{
    for (size_t i = 0; i + 1 < n - i; i++) {
        const Stmt *t = v[i];
        v[i] = v[n - 1 - i], v[n - 1 - i] = t;
    }
}

static Scope scope_of(Gpu *G, const Stmt *s)
{
    Scope sc = {0};
    for (const Stmt *p = s->parent; p; s = p, p = p->parent) {
        if (p->kind != ST_COMPOUND) {
            vec_push(G->a, &sc.around, p);
            continue;
        }
        size_t i = 0;
        while (p->kids[i] != s)
            i++;
        while (i-- > 0)
            if (p->kids[i]->kind == ST_DECL)
                vec_push(G->a, &sc.decls, p->kids[i]);
    }
    reverse(sc.decls.data, sc.decls.len);
    reverse(sc.around.data, sc.around.len);
    return sc;
}

static bool decl_used(const Stmt *d, const Range *used, size_t nused)
{
    for (size_t v = 0; v < d->ndecls; v++)
        for (size_t u = 0; u < nused; u++)
            if (oklc_refers_in(d->decls[v], used[u]))
                return true;
    return false;
}

/* Does the size of a @tile in r name v? Clang sees no names in an
 * attribute's arguments: the size is matched as text. */
static bool sizes_name(Gpu *G, Range r, const Var *v)
{
    for (size_t i = 0; i < G->k->nloops; i++) {
        const Loop *l = G->k->loops[i];
        if (l->tile_part == 1 && oklc_in_range(r, l->stmt.begin) &&
            oklc_names(l->tile_size, v->name))
            return true;
    }
    return false;
}

/* A declaration of a type (typedef, using, struct, class, union, enum):
 * it costs nothing and may name a type the code uses, so every device
 * kernel and launcher has it. */
static bool declares_type(Gpu *G, const Stmt *d)
{
    static const char *const words[] = {"typedef", "using", "struct", "class", "union", "enum"};
    if (d->ndecls)
        return false;
    const char *t = G->E->nz->text + d->range.begin;
    for (size_t i = 0; i < OKLC_COUNTOF(words); i++) {
        size_t n = strlen(words[i]);
        if (!strncmp(t, words[i], n) && !oklc_ident_char(t[n]))
            return true;
    }
    return false;
}

/* Which of the declarations decls[0..n) `used` reads (or the sizes of
 * the @tile loops in `tiles`), directly or through a later one. */
static bool *needed_decls(Gpu *G, const Stmt *const *decls, size_t n, const Range *used,
                          size_t nused, Range tiles)
{
    bool *need = oklc_arena_alloc(G->a, (n + 1) * sizeof *need);
    for (size_t i = n; i-- > 0;) {
        need[i] = declares_type(G, decls[i]) || decl_used(decls[i], used, nused);
        for (size_t v = 0; v < decls[i]->ndecls && !need[i]; v++)
            need[i] = sizes_name(G, tiles, decls[i]->decls[v]);
        for (size_t later = i + 1; later < n && !need[i]; later++)
            need[i] = need[later] && decl_used(decls[i], &decls[later]->range, 1);
    }
    return need;
}

/* A variable declared in the head of a host statement around a nest (the
 * iterator of a loop the launcher runs) changes between its launches: the
 * device kernel cannot compute it again. */
/* Where v is first read in used[0..n), or UINT32_MAX. */
static uint32_t first_read(const Var *v, const Range *used, size_t n)
{
    for (size_t r = 0; r < v->nrefs; r++)
        for (size_t u = 0; u < n; u++)
            if (oklc_in_range(used[u], v->refs[r].begin))
                return v->refs[r].begin;
    return UINT32_MAX;
}

static bool reads_host_variable(Gpu *G, const Scope *sc, const Range *used, size_t nused)
{
    for (size_t a = 0; a < sc->around.len; a++) {
        for (size_t i = 0; i < G->k->nlocals; i++) {
            const Var *v = G->k->locals[i];
            uint32_t at = oklc_in_range(sc->around.data[a]->head, v->name_off)
                              ? first_read(v, used, nused) : UINT32_MAX;
            if (at != UINT32_MAX) {
                oklc_gpu_error(G, at, "on GPUs the statements around a top-level @outer loop "
                                      "run in the launcher, and the device kernel cannot read "
                                      "'%s', which they change",
                               v->name);
                return true;
            }
        }
    }
    return false;
}

const char *oklc_gpu_params(Gpu *G, const KernelOut *ko, GpuParams form)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_puts(&b, "");
    for (size_t p = 0; p < k->nparams; p++) {
        const Type *t = &k->params[p]->type;
        const char *type = form == GPU_PARAM_NAMES ? ""
                           : ko ? oklc_subst_targs(G->E->c, k, t->spelling, ko->targs, ko->ntargs)
                                : t->spelling;
        const char *sep = form == GPU_PARAM_NAMES ? ""
                          : form == GPU_PARAM_BY_REF && !t->pointer && !t->array && !t->reference
                              ? " &" : " ";
        oklc_buf_printf(&b, "%s%s%s%s", p ? ", " : "", type, sep, k->params[p]->name);
    }
    if (G->faults.len)
        oklc_buf_printf(&b, "%s%s", k->nparams ? ", " : "",
                        form == GPU_PARAM_NAMES ? "_occa_faults" : G->T->fault_param);
    return b.data;
}

/* "(float *a, int n)" with the kernel's faults last when it has them. */
static const char *with_faults(Gpu *G, const char *params)
{
    if (!G->faults.len)
        return params;
    const char *p = params + 1;
    while (*p == ' ' || *p == '\n' || *p == '\t')
        p++;
    bool none = *p == ')' || !strncmp(p, "void)", 5);
    return oklc_arena_printf(G->a, "%.*s%s%s)", none ? 1 : (int)strlen(params) - 1, params,
                             none ? "" : ", ", G->T->fault_param);
}

const char *oklc_gpu_targs(Gpu *G, const KernelOut *ko)
{
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_puts(&b, "<");
    for (size_t t = 0; t < ko->ntargs; t++)
        oklc_buf_printf(&b, "%s%s", t ? ", " : "", ko->targs[t]);
    oklc_buf_puts(&b, ">");
    return b.data;
}

/* A template kernel's device kernels: the body as a template device
 * function, and for each instance an extern "C" kernel that calls it. */
static void instances(Gpu *G, size_t index, Buf *b)
{
    const Kernel *k = G->k;
    for (size_t i = 0; i < G->E->kernels.len; i++) {
        const KernelOut *ko = &G->E->kernels.data[i];
        if (ko->kernel != k)
            continue;
        oklc_buf_printf(b, "%s void _occa_%s_%zu%s(%s)\n{\n  _occa_%s_%zu_body%s(%s);\n}\n",
                        G->T->kernel_specs, k->name, index, ko->suffix,
                        oklc_gpu_params(G, ko, GPU_PARAM_TYPED), k->name, index,
                        oklc_gpu_targs(G, ko), oklc_gpu_params(G, ko, GPU_PARAM_NAMES));
    }
}

/* A template kernel's instances where the target has no templates: the
 * device kernel once per instance, with the template's arguments written
 * in place of its parameters (whole identifiers). */
static const char *copied_instances(Gpu *G, const DeviceKernel *d)
{
    const Kernel *k = G->k;
    Buf b;
    oklc_buf_init(&b, G->a);
    oklc_buf_puts(&b, "");
    for (size_t i = 0; i < G->E->kernels.len; i++) {
        const KernelOut *ko = &G->E->kernels.data[i];
        if (ko->kernel != k)
            continue;
        const char *text = oklc_arena_printf(G->a, "%s void %s%s%s\n{\n%s%s}\n",
                                             G->T->kernel_specs, d->name, ko->suffix, d->params,
                                             d->top, d->body);
        oklc_buf_puts(&b, oklc_subst_targs(G->E->c, k, text, ko->targs, ko->ntargs));
    }
    return b.data;
}

/* The device kernel's attributes: the launch-size hint of its block when
 * it is known (or required: [[cl::reqd_work_group_size]], which the
 * launch checks), then OpenCL's hints where the target has them. */
static const char *kernel_hints(Gpu *G, const Nest *n)
{
    const Kernel *k = G->k;
    int64_t req[3];
    bool sized = n->nblock[0] > 0 && n->nblock[1] > 0 && n->nblock[2] > 0;
    const int64_t *block = k->reqd_wgs && oklc_model_sizes(k->reqd_wgs, req) ? req
                           : sized ? n->nblock : NULL;
    const char *h = block && G->T->launch_hint ? G->T->launch_hint(G->a, block) : NULL;
    int64_t hint[3];
    if (k->wgs_hint && G->T->size_hint && oklc_model_sizes(k->wgs_hint, hint)) {
        const char *s = oklc_arena_printf(G->a, G->T->size_hint, (long long)hint[0],
                                          (long long)hint[1], (long long)hint[2]);
        h = h ? oklc_arena_printf(G->a, "%s %s", h, s) : s;
    }
    if (k->vec_hint && G->T->vec_hint) {
        const char *s = oklc_arena_printf(G->a, G->T->vec_hint, k->vec_hint->args[0].text);
        h = h ? oklc_arena_printf(G->a, "%s %s", h, s) : s;
    }
    return h;
}

/* CUDA's, HIP's and OpenCL's form of a device kernel. */
static const char *plain_device_kernel(Gpu *G, const DeviceKernel *d)
{
    const Kernel *k = G->k;
    if (k->is_template && G->T->copy_instances)
        return copied_instances(G, d);
    Buf b;
    oklc_buf_init(&b, G->a);
    if (k->is_template)
        oklc_buf_printf(&b, "template <%s>\n%s void %s_body%s\n{\n", k->template_params,
                        G->T->device_specs, d->name, d->params);
    else
        oklc_buf_printf(&b, "%s%s%s void %s%s\n{\n", G->T->kernel_specs, d->hint ? " " : "",
                        d->hint ? d->hint : "", d->name, d->params);
    oklc_buf_printf(&b, "%s%s}\n", d->top, d->body);
    if (k->is_template)
        instances(G, d->index, &b);
    return b.data;
}

static const char *device_kernel(Gpu *G, const Nest *n, size_t index, const char *shared_decls)
{
    Scope sc = scope_of(G, n->top->node);
    Range body = n->top->stmt;
    bool *need = needed_decls(G, sc.decls.data, sc.decls.len, &body, 1, body);
    Ranges reads = {0};
    vec_push(G->a, &reads, body);
    for (size_t i = 0; i < sc.decls.len; i++)
        if (need[i])
            vec_push(G->a, &reads, sc.decls.data[i]->range);
    if (reads_host_variable(G, &sc, reads.data, reads.len))
        return "";
    Buf b;
    oklc_buf_init(&b, G->a);
    for (size_t i = 0; i < sc.decls.len; i++)
        if (need[i])
            oklc_buf_printf(&b, "  %s\n", render(G, sc.decls.data[i]->range));
    oklc_buf_printf(&b, "  %s\n", render(G, n->top->stmt));
    DeviceKernel d = {
        .index = index,
        .name = oklc_arena_printf(G->a, "_occa_%s_%zu", G->k->name, index),
        .params = with_faults(G, render(G, params_range(G))),
        .hint = kernel_hints(G, n),
        .top = shared_decls,
        .body = b.data,
        .nest = n->top,
    };
    return G->T->device_kernel ? G->T->device_kernel(G, &d) : plain_device_kernel(G, &d);
}

/* [[cl::packed]] where the target has no packed structs. */
static bool layouts(Emit *E)
{
    for (size_t i = 0; E->be->gpu->no_packed && i < E->nz->nlayouts; i++)
        if (E->nz->layouts[i].id == ATTR_CL_PACKED) {
            const Token *t = E->nz->layouts[i].tok;
            oklc_diag_error(E->c, oklc_tok_user_loc(t), "'cl::packed' is not supported by "
                            "the %s backend: it has no packed structs", E->be->name);
            return false;
        }
    return true;
}

/* ---- the launcher --------------------------------------------------------------------------------- */

/* A scalar argument as the launcher reads it from args[i]. */
static const char *read_argument(Gpu *G, const Var *p, size_t i)
{
    const char *t = p->type.spelling;
    if (!strncmp(t, "const ", 6))
        t += 6;
    return oklc_arena_printf(G->a, "    const %s %s = *(const %s *)_occa_args[%zu];\n", t, p->name,
                             t, i);
}

/* ---- the launcher's checks ---------------------------------------------------------------- */

/* The launcher's tests before the launch (oklc_emit_launch_checks): a
 * refusal is the runtime's error. */
static void launch_checks(const Nest *n, const char *ind, Buf *b)
{
    for (size_t i = 0; i < n->nchecks; i++) {
        const LaunchCheck *c = &n->checks[i];
        oklc_buf_printf(b, "%sif (%s)\n%s  return _occa_refuse(_occa_api, \"%s\", %s, %s);\n", ind,
                        c->refused, ind, c->message, c->a, c->b);
    }
}

/* Runs nest `index`: its checks, grid and block, then the launch; `ind`
 * starts each line. */
static void launch(const Nest *n, size_t index, const char *ind, Buf *b)
{
    launch_checks(n, ind, b);
    oklc_buf_printf(b, "%sconst unsigned long _occa_grid[3] = {_occa_count(%s), _occa_count(%s), "
                       "_occa_count(%s)};\n",
                    ind, n->grid[0], n->grid[1], n->grid[2]);
    oklc_buf_printf(b, "%sconst unsigned long _occa_block[3] = {_occa_count(%s), _occa_count(%s), "
                       "_occa_count(%s)};\n",
                    ind, n->block[0], n->block[1], n->block[2]);
    oklc_buf_printf(b, "%sif (_occa_grid[0] && _occa_grid[1] && _occa_grid[2]) {\n"
                       "%s  const int _occa_e = _occa_api->run(_occa_api->device, %zu, _occa_grid, "
                       "_occa_block, _occa_args);\n"
                       "%s  if (_occa_e)\n%s    return _occa_e;\n%s}\n",
                    ind, ind, index, ind, ind, ind);
}

/* The host's side of statement s: what the launcher reads (the nests'
 * bounds, the host statements' heads) and the declarations in its blocks. */
typedef struct Host {
    Ranges            used;
    VEC(const Stmt *) decls;
} Host;

static void host_parts(Gpu *G, const Stmt *s, Nest *nests, Host *h)
{
    const Kernel *k = G->k;
    for (size_t i = 0; i < k->nouters; i++) {
        if (k->outers[i]->node != s)
            continue;
        for (size_t j = 0; j < nests[i].bounds.len; j++)
            vec_push(G->a, &h->used, nests[i].bounds.data[j]);
        const Attr *mid = k->outers[i]->max_inner_dims;
        if (mid)
            vec_push(G->a, &h->used, ((Range){mid->off, mid->end}));
        return;
    }
    if (s->kind == ST_DECL) {
        vec_push(G->a, &h->decls, s);
        return;
    }
    vec_push(G->a, &h->used, s->head);
    for (size_t i = 0; i < s->nkids; i++)
        host_parts(G, s->kids[i], nests, h);
}

/* What the launcher reads must not point to device memory. */
static bool host_can_read(Gpu *G, const Var *v)
{
    if (v->type.pointer || v->type.array)
        oklc_gpu_error(G, v->name_off, "on GPUs the launcher computes the grid from the "
                       "arguments, and '%s' points to device memory: the loop bounds "
                       "cannot read through it", v->name);
    return !(v->type.pointer || v->type.array);
}

/* Statement `s` of the kernel body, a nest or a statement holding nests, in
 * the launcher: the arguments and declarations it reads, then the nest's
 * launch, or the statement as written with each nest's launch in its
 * place and only the declarations it reads. */
static void launcher_stmt(Gpu *G, const Stmt *s, Nest *nests, Buf *b)
{
    /* the host's C++: the statements as written, less OKL's attributes
     * (not the device's edits) */
    Edits host;
    oklc_edits_init(&host, G->a, G->E->nz->text, G->E->nz->len);
    oklc_edits_drop_specs(&host, G->E->nz);
    const Kernel *k = G->k;
    Host h = {0};
    host_parts(G, s, nests, &h);
    bool *inner = needed_decls(G, h.decls.data, h.decls.len, h.used.data, h.used.len, s->range);
    for (size_t i = 0; i < h.decls.len; i++)
        if (inner[i])
            vec_push(G->a, &h.used, h.decls.data[i]->range);
        else
            oklc_edit_delete(&host, h.decls.data[i]->range.begin, h.decls.data[i]->range.end);
    Scope sc = scope_of(G, s);
    bool *top = needed_decls(G, sc.decls.data, sc.decls.len, h.used.data, h.used.len, s->range);
    for (size_t i = 0; i < sc.decls.len; i++)
        if (top[i])
            vec_push(G->a, &h.used, sc.decls.data[i]->range);
    oklc_buf_puts(b, "  {\n");
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *p = k->params[i];
        bool read = false;
        for (size_t u = 0; u < h.used.len && !read; u++)
            read = oklc_refers_in(p, h.used.data[u]);
        read |= sizes_name(G, s->range, p);
        if (read && !host_can_read(G, p))
            return;
        if (read)
            oklc_buf_puts(b, read_argument(G, p, i));
    }
    for (size_t i = 0; i < sc.decls.len; i++) {
        const Stmt *d = sc.decls.data[i];
        if (top[i] && d->ndecls && !host_can_read(G, d->decls[0]))
            return;
        if (top[i])
            oklc_buf_printf(b, "    %s\n", oklc_edits_text(&host, d->range.begin, d->range.end));
    }
    for (size_t i = 0; i < h.decls.len; i++)
        if (inner[i] && h.decls.data[i]->ndecls && !host_can_read(G, h.decls.data[i]->decls[0]))
            return;
    for (size_t i = 0; i < k->nouters; i++) {
        if (k->outers[i]->node == s) {
            launch(&nests[i], i, "    ", b);
            oklc_buf_puts(b, "  }\n");
            return;
        }
        if (!oklc_in_range(s->range, k->outers[i]->stmt.begin))
            continue;
        const char *ind = oklc_emit_indent(G->E, k->outers[i]->stmt.begin);
        Buf l;
        oklc_buf_init(&l, G->a);
        oklc_buf_puts(&l, "{\n");
        launch(&nests[i], i, oklc_arena_printf(G->a, "%s  ", ind), &l);
        oklc_buf_printf(&l, "%s}", ind);
        oklc_edit_replace(&host, k->outers[i]->stmt.begin, k->outers[i]->stmt.end, l.data);
    }
    oklc_buf_printf(b, "    %s\n  }\n", oklc_edits_text(&host, s->range.begin, s->range.end));
}

/* ---- the kernel ----------------------------------------------------------------------------------- */

static void kernel(Emit *E, Kernel *k, Buf *launchers)
{
    const GpuTarget *T = E->be->gpu;
    Gpu G = {.E = E, .k = k, .T = T, .a = &E->c->arena, .ok = true};
    if (k->root && !host_statements(&G, k->root))
        return;
    Nest *nests = oklc_arena_alloc(G.a, (k->nouters + 1) * sizeof *nests);
    for (size_t i = 0; i < k->nouters; i++) {
        nests[i].top = k->outers[i];
        if (!nest_shape(&G, &nests[i]) || !block_fits(&G, &nests[i]))
            return;
    }
    /* the parts first, then what is built from their text */
    oklc_emit_jumps(E, k, false);
    atomics(&G);
    Buf shared;
    oklc_buf_init(&shared, G.a);
    shared_memory(&G, &shared);
    oklc_emit_dims(E, k);
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        for (size_t j = 0; j < k->nouters; j++)
            if (oklc_in_range(nests[j].top->stmt, l->stmt.begin))
                loop_edits(&G, &nests[j], l);
    }
    unroll_attrs(&G);
    explicit_barriers(&G);
    implicit_barriers(&G);
    if (!G.ok)
        return;
    Buf dev;
    oklc_buf_init(&dev, G.a);
    for (size_t i = 0; i < k->nouters; i++)
        oklc_buf_puts(&dev, device_kernel(&G, &nests[i], i, shared.data ? shared.data : ""));
    oklc_edit_replace(&E->ed, k->decl.begin, k->decl.end, dev.data);
    for (size_t i = 0; i < E->kernels.len; i++)
        if (E->kernels.data[i].kernel == k) {
            E->kernels.data[i].faults = G.faults.data;
            E->kernels.data[i].nfaults = G.faults.len;
        }
    if (k->is_template)
        oklc_buf_printf(launchers, "template <%s>\nstatic int _occa_launch_%s_body("
                                   "const _occa_launch_api *_occa_api,\n"
                                   "    void *const *_occa_args)\n{\n",
                        k->template_params, k->name);
    else
        oklc_buf_printf(launchers, "extern \"C\" int _occa_launch_%s(const _occa_launch_api "
                                   "*_occa_api, void *const *_occa_args)\n{\n",
                        k->name);
    for (size_t i = 0; k->root && i < k->root->nkids; i++)
        if (is_nest(k, k->root->kids[i]) || holds_nests(k, k->root->kids[i]))
            launcher_stmt(&G, k->root->kids[i], nests, launchers);
    oklc_buf_puts(launchers, "  (void)_occa_api;\n  (void)_occa_args;\n  return 0;\n}\n\n");
    for (size_t i = 0; k->is_template && i < E->kernels.len; i++) {
        const KernelOut *ko = &E->kernels.data[i];
        if (ko->kernel != k)
            continue;
        oklc_buf_printf(launchers, "extern \"C\" int _occa_launch_%s%s(const _occa_launch_api "
                                   "*_occa_api, void *const *_occa_args)\n{\n"
                                   "  return _occa_launch_%s_body<",
                        k->name, ko->suffix, k->name);
        for (size_t t = 0; t < ko->ntargs; t++)
            oklc_buf_printf(launchers, "%s%s", t ? ", " : "", ko->targs[t]);
        oklc_buf_puts(launchers, ">(_occa_api, _occa_args);\n}\n\n");
    }
}

/* Globals: constants in the target's constant memory, the others in its
 * global memory (where it has them). */
static void globals(Emit *E)
{
    const GpuTarget *T = E->be->gpu;
    for (size_t i = 0; i < E->m->nglobals; i++) {
        const Var *v = E->m->globals[i];
        bool constant = v->type.is_const && !(v->type.pointer && !v->type.array);
        if (v->type_at >= v->name_off)
            continue;                         /* int a, b: the first one has it */
        if (constant && v->constexpr_ && !v->type.array)
            continue;                         /* a compile-time value */
        const char *specs = constant ? T->constant_var : T->global_var;
        if (!specs) {
            oklc_model_error(E->c, v->name_off, "the %s backend has no writable global "
                             "variables: make '%s' const, or pass it to the kernel",
                             E->be->name, v->name);
            continue;
        }
        if (*specs)
            oklc_edit_before(&E->ed, v->type_at, oklc_arena_printf(&E->c->arena, "%s ", specs));
    }
}

/* Functions outside kernels run on the device. So does a kernel's
 * prototype (its body is elsewhere) declare a device function: a runtime
 * compiler (NVRTC) refuses host functions. */
static void device_functions(Emit *E)
{
    const char *specs = E->be->gpu->device_specs;
    if (!specs)
        return;
    const char *text = oklc_arena_printf(&E->c->arena, "%s ", specs);
    for (size_t i = 0; i < E->m->nfunctions; i++)
        oklc_edit_before(&E->ed, E->m->functions[i]->specs_at, text);
    for (size_t i = 0; i < E->m->nkernel_protos; i++)
        oklc_edit_before(&E->ed, E->m->kernel_protos[i], text);
}

/* C++ that device code has not, on every GPU target: exceptions and
 * thread_local variables (OpenCL's prepare reports them first). */
static bool device_limits(Emit *E)
{
    const Model *m = E->m;
    bool ok = true;
    for (size_t i = 0; i < m->ncxx; i++)
        if (!strcmp(m->cxx[i].what, "throw") || !strcmp(m->cxx[i].what, "try")) {
            oklc_model_error(E->c, m->cxx[i].at, "%s: the %s backend's device code has no C++ "
                             "exceptions", m->cxx[i].what, E->be->name);
            ok = false;
        }
    for (size_t i = 0; i < m->nglobals; i++)
        if (m->globals[i]->thread_local_) {
            oklc_model_error(E->c, m->globals[i]->name_off, "'%s' is thread_local: the %s "
                             "backend's device variables cannot be", m->globals[i]->name,
                             E->be->name);
            ok = false;
        }
    return ok;
}

bool oklc_gpu_translate(Emit *E)
{
    int errors = E->c->nerrors;
    if (!oklc_emit_kernel_list(E) || !layouts(E))
        return false;
    oklc_emit_attributes(E);
    device_functions(E);
    globals(E);
    oklc_edits_directives(&E->ed, "pragma", unroll_pragma, E);
    if ((E->be->gpu->prepare && !E->be->gpu->prepare(E)) || !device_limits(E))
        return false;
    Buf launchers;
    oklc_buf_init(&launchers, &E->c->arena);
    for (size_t i = 0; i < E->m->nkernels; i++)
        kernel(E, E->m->kernels[i], &launchers);
    if (E->c->nerrors > errors)
        return false;
    for (size_t i = 0; i < E->kernels.len; i++) {
        KernelOut *ko = &E->kernels.data[i];
        size_t n = ko->kernel->nouters;
        const char **fns = oklc_arena_alloc(&E->c->arena, (n + 1) * sizeof *fns);
        for (size_t j = 0; j < n; j++)
            fns[j] = oklc_arena_printf(&E->c->arena, "_occa_%s_%zu%s", ko->kernel->name, j,
                                       ko->suffix);
        ko->functions = fns;
        ko->nfunctions = n;
        ko->entry = oklc_arena_printf(&E->c->arena, "_occa_launch_%s%s", ko->kernel->name,
                                      ko->suffix);
    }
    E->launcher = oklc_launcher_source(E->c, E->nz, E->m, E->be->name, E->path,
                                       launchers.data ? launchers.data : "", E->kernels.data,
                                       E->kernels.len);
    return true;
}
