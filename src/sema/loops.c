/*
 * loops.c - the tree of attributed loops of a kernel.
 *
 * A nest is a top-level @outer loop and the attributed loops inside it. In
 * a nest: @inner only inside @outer and never @outer inside @inner (where
 * one is written so, in nested tiles, it moves above when nothing stands
 * between them: all the levels are parallel); every
 * path from the top to a leaf has the same number of @outer levels (at
 * most 3) then the same number of @inner levels (at least 1, at most 3);
 * the loops of one level all have the same attribute. Axes are given or
 * counted from the innermost level of each kind (x = 0); along a path no
 * axis repeats. Every attributed loop has an iteration count.
 */
#include <string.h>

#include "sema.h"

enum { MAX_LEVELS = 3 };

const char *oklc_loop_attr_name(const Loop *l)
{
    if (l->tile_part)
        return "@tile";
    return l->kind == LOOP_OUTER ? "@outer" : l->kind == LOOP_INNER ? "@inner" : "loop";
}

static const char *kind_name(LoopKind k)
{
    return k == LOOP_OUTER ? "@outer" : "@inner";
}

static uint32_t at(const Loop *l)
{
    return l->stmt.begin;
}

/* ---- @outer levels written inside @inner ones ------------------------------------ */

/* Whether the header of l uses the iterator of `of`. */
static bool header_uses(const Kernel *k, const Loop *l, const Loop *of)
{
    for (size_t i = 0; i < k->nlocals; i++)
        if (k->locals[i]->name_off == of->iter_off && oklc_refers_in(k->locals[i], l->header))
            return true;
    return false;
}

/* The statement that is the body of for statement s, through one pair of
 * braces. */
static const Stmt *only_statement(const Stmt *s)
{
    const Stmt *body = s->kids[s->nkids - 1];
    if (body->kind == ST_COMPOUND && body->nkids == 1)
        body = body->kids[0];
    return body;
}

/* Whether for statement `to` is all of the body of `from`, or of the
 * attributed loops between them (levels moved before), alone in theirs. */
static bool nothing_between(const Stmt *from, const Stmt *to)
{
    for (const Stmt *s = from; s->kind == ST_FOR && (s == from || s->loop);) {
        s = only_statement(s);
        if (s == to)
            return true;
    }
    return false;
}

/* @outer loop `out` inside @inner loop `in`: why it cannot move above in
 * (in's iterations all run out whole, and out's iterations run in's whole,
 * the same work when nothing else is there), or NULL if it can. */
static const char *why_not_hoisted(oklc_ctx *c, const Kernel *k, const Loop *in, const Loop *out)
{
    if (!in->node || !out->node || in->node->kind != ST_FOR)
        return "";
    if (in->nkids != 1 || !nothing_between(in->node, out->node))
        return oklc_arena_printf(&c->arena, ": other statements stand between it and the @inner "
                                            "loop at line %u, so it cannot move above",
                                 oklc_model_line(c, at(in)));
    if (header_uses(k, out, in))
        return oklc_arena_printf(&c->arena, ": its range uses '%s' of the @inner loop at line "
                                            "%u, so it cannot move above",
                                 in->iter, oklc_model_line(c, at(in)));
    if (out->node->has_barrier)
        return oklc_arena_printf(&c->arena, ": it holds a barrier, which needs the threads of "
                                            "the @inner loop at line %u together, so it cannot "
                                            "move above",
                                 oklc_model_line(c, at(in)));
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if ((v->shared || v->exclusive) && oklc_in_range(out->stmt, v->name_off))
            return oklc_arena_printf(&c->arena, ": it holds '@%s' memory ('%s'), which would "
                                                "be shared by the threads of the @inner loop at "
                                                "line %u, so it cannot move above",
                                     v->shared ? "shared" : "exclusive", v->name,
                                     oklc_model_line(c, at(in)));
    }
    return NULL;
}

static void set_levels(Loop *l, int level)
{
    l->level = level;
    for (size_t i = 0; i < l->nkids; i++)
        set_levels(l->kids[i], level + 1);
}

/* in > out > ... becomes out > in > ...: in's only child is out. */
static void swap_levels(Loop *in, Loop *out)
{
    Loop *p = in->parent, **one = in->kids;
    for (size_t i = 0; p && i < p->nkids; i++)
        if (p->kids[i] == in)
            p->kids[i] = out;
    out->parent = p;
    in->kids = out->kids;
    in->nkids = out->nkids;
    for (size_t i = 0; i < in->nkids; i++)
        in->kids[i]->parent = in;
    one[0] = in;
    out->kids = one;
    out->nkids = 1;
    in->parent = out;
    set_levels(out, in->level);
}

/* Moves every @outer level that can go above the @inner levels it is
 * written in; returns whether one moved. */
static bool hoist_outers(oklc_ctx *c, const Kernel *k, Loop *l)
{
    for (size_t i = 0; i < l->nkids; i++) {
        Loop *kid = l->kids[i];
        if (l->kind == LOOP_INNER && kid->kind == LOOP_OUTER && !why_not_hoisted(c, k, l, kid)) {
            swap_levels(l, kid);
            return true;
        }
        if (hoist_outers(c, k, kid))
            return true;
    }
    return false;
}

/* ---- the shape of a nest ------------------------------------------------------ */

typedef struct Nest {
    oklc_ctx   *c;
    const Kernel *k;
    const ParseOptions *o;
    const Loop *level_kind[2 * MAX_LEVELS + 2];   /* first loop seen at each level */
    const Loop *leaf;                             /* the first leaf */
    int         leaf_level;
    bool        failed;
} Nest;

static void nest_error(Nest *n, const Loop *l, const char *fmt, ...) OKLC_PRINTF(3, 4);

static void nest_error(Nest *n, const Loop *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Buf b;
    oklc_buf_init(&b, &n->c->arena);
    oklc_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    oklc_model_error(n->c, at(l), "%s", b.data);
    n->failed = true;
}

/* Walks a nest; `outers`/`inners` count the levels above `l`. */
static void shape(Nest *n, const Loop *l, int outers, int inners)
{
    if (n->failed)
        return;
    if (l->kind == LOOP_OUTER && inners) {
        const char *why = l->parent->kind == LOOP_INNER
                              ? why_not_hoisted(n->c, n->k, l->parent, l) : "";
        nest_error(n, l, "an @outer loop cannot be inside an @inner loop%s", why ? why : "");
        return;
    }
    outers += l->kind == LOOP_OUTER;
    inners += l->kind == LOOP_INNER;
    if (outers > MAX_LEVELS || inners > MAX_LEVELS) {
        nest_error(n, l, "too many nested %s loops: at most %d (axes x, y, z)", kind_name(l->kind),
                   MAX_LEVELS);
        return;
    }
    int lv = l->level;
    if (lv < (int)OKLC_COUNTOF(n->level_kind)) {
        const Loop *first = n->level_kind[lv];
        if (!first) {
            n->level_kind[lv] = l;
        } else if (first->kind != l->kind) {
            nest_error(n, l, "this %s loop is at the same level as the %s loop at line %u; the "
                             "loops of one level of a nest must have the same attribute",
                       kind_name(l->kind), kind_name(first->kind), oklc_model_line(n->c, at(first)));
            return;
        }
    }
    if (l->nkids == 0) {
        if (l->kind == LOOP_OUTER) {
            nest_error(n, l, "this @outer loop has no @inner loop inside it");
            return;
        }
        if (!n->leaf) {
            n->leaf = l;
            n->leaf_level = lv;
        } else if (lv != n->leaf_level) {
            nest_error(n, lv < n->leaf_level ? l : n->leaf,
                       "the loops of this nest are uneven: every path from the top @outer loop "
                       "must go through the same number of @outer and @inner loops (line %u "
                       "has %d levels, line %u has %d)",
                       oklc_model_line(n->c, at(n->leaf)), n->leaf_level + 1, oklc_model_line(n->c, at(l)),
                       lv + 1);
            return;
        }
    }
    for (size_t i = 0; i < l->nkids; i++)
        shape(n, l->kids[i], outers, inners);
}

/* ---- axes --------------------------------------------------------------------------- */

/* The levels of each kind under l (the same on every path of a sound nest). */
static int depth_of(const Loop *l, LoopKind k)
{
    int d = 0;
    for (; l; l = l->nkids ? l->kids[0] : NULL)
        d += l->kind == k;
    return d;
}

/* Gives each loop without a written axis its axis: its distance from the
 * innermost loop of its kind (x = 0 is the innermost). */
static void count_axes(Loop *l, int outer_above, int inner_above, int nouter, int ninner)
{
    if (!l->axis_given) {
        if (l->kind == LOOP_OUTER)
            l->axis = nouter - 1 - outer_above;
        else if (l->kind == LOOP_INNER)
            l->axis = ninner - 1 - inner_above;
    }
    outer_above += l->kind == LOOP_OUTER;
    inner_above += l->kind == LOOP_INNER;
    for (size_t i = 0; i < l->nkids; i++)
        count_axes(l->kids[i], outer_above, inner_above, nouter, ninner);
}

/* No axis twice among the @outer (or @inner) loops of one path. */
static bool distinct_axes(oklc_ctx *c, const Loop *l, const Loop **path, int depth)
{
    for (int i = 0; i < depth; i++) {
        const Loop *p = path[i];
        if (p->kind == l->kind && p->axis == l->axis && l->axis >= 0) {
            oklc_model_error(c, at(l), "%s axis %d is already used by the %s loop at line %u; "
                                       "the loops of one nest need different axes",
                             kind_name(l->kind), l->axis, kind_name(p->kind), oklc_model_line(c, at(p)));
            return false;
        }
    }
    path[depth] = l;
    for (size_t i = 0; i < l->nkids; i++)
        if (!distinct_axes(c, l->kids[i], path, depth + 1))
            return false;
    return true;
}

/* ---- per loop ------------------------------------------------------------------------- */

static bool positive_constants(const Attr *a, int max)
{
    for (int i = 0; i < a->nargs && i < max; i++) {
        const char *t = a->args[i].text;
        uint64_t v;
        bool u;
        const char *err;
        if (a->args[i].kind != ARG_EXPR || !oklc_int_literal(t, strlen(t), &v, &u, &err) || v == 0)
            return false;
    }
    return true;
}

/* @max_inner_dims(x, y, z) is the block on GPUs: a known count larger
 * would lose the rest there (every backend refuses it alike; counts known
 * at launch are the launch's check). */
static void inner_within(oklc_ctx *c, const Loop *l, const int64_t max[3])
{
    if (l->kind == LOOP_INNER && l->trips_known && l->axis >= 0 && l->axis < 3 &&
        l->ntrips > max[l->axis])
        oklc_model_error(c, at(l), "this @inner loop runs %lld iterations on axis %d, more than "
                         "the %lld threads that @max_inner_dims gives its block",
                         (long long)l->ntrips, l->axis, (long long)max[l->axis]);
    for (size_t i = 0; i < l->nkids; i++)
        inner_within(c, l->kids[i], max);
}

static void loop_checks(oklc_ctx *c, Loop *l)
{
    int64_t max[3];
    if (l->tile_part == 2)
        return;                          /* its first level says it all */
    const char *name = oklc_loop_attr_name(l);
    if (!l->analyzed && (l->kind != LOOP_REGULAR || l->tile_part))
        oklc_model_error(c, at(l), "cannot compute the number of iterations of this %s loop: %s",
                         name, l->problem ? l->problem : "its header has an unknown form");
    if (l->axis_given && l->axis < 0)
        oklc_model_error(c, l->axis_attr->args[0].off, "the axis of '@%s' must be 0, 1 or 2",
                         l->axis_attr->name);
    Loop *other = l->tile_other;
    if (other && other->axis_given && other->axis < 0)
        oklc_model_error(c, other->axis_attr->args[0].off, "the axis of '@%s' must be 0, 1 or 2",
                         other->axis_attr->name);
    if (l->tile_part == 1 && l->tile_value != INT64_MIN && l->tile_value <= 0)
        oklc_model_error(c, l->attr->args[0].off, "the tile size must be positive");
    else if (l->tile_part == 1 && l->tile_error)
        oklc_model_error(c, l->attr->args[0].off, "%s", l->tile_error);
    if (l->max_inner_dims) {
        if (l->parent || l->kind != LOOP_OUTER)
            oklc_model_error(c, l->max_inner_dims->off, "'@max_inner_dims' applies to top-level "
                                                        "@outer loops only");
        else if (!positive_constants(l->max_inner_dims, 3))
            oklc_model_error(c, l->max_inner_dims->off, "the sizes of '@max_inner_dims' must be "
                                                        "positive integer constants");
        else if (oklc_model_sizes(l->max_inner_dims, max))
            inner_within(c, l, max);
    }
    if (l->simd_length) {
        if (l->parent || l->kind != LOOP_OUTER)
            oklc_model_error(c, l->simd_length->off, "'@simd_length' applies to top-level @outer "
                                                     "loops only");
        else if (!positive_constants(l->simd_length, 1))
            oklc_model_error(c, l->simd_length->off, "the length of '@simd_length' must be a "
                                                     "positive integer constant");
    }
    if (l->unroll && !positive_constants(l->unroll, 1))
        oklc_model_error(c, l->unroll->off, "the count of '@unroll' must be a positive integer "
                                            "constant");
    if (l->ivdep && !positive_constants(l->ivdep, 1))
        oklc_model_error(c, l->ivdep->off, "the length of 'cl::ivdep' must be a positive "
                                           "integer constant");
    if (l->nobarrier && l->kind != LOOP_INNER)
        oklc_model_diag(c, DIAG_WARNING, l->nobarrier->off, "'@nobarrier' has no effect on a loop "
                                                            "that is not @inner");
}

/* -Wall: @inner loops of one @outer with different constant counts. */
static void uneven_inner(oklc_ctx *c, const Loop *l)
{
    const Loop *first = NULL;
    for (size_t i = 0; i < l->nkids; i++) {
        const Loop *k = l->kids[i];
        if (k->kind != LOOP_INNER || !k->trips_known)
            continue;
        if (!first) {
            first = k;
        } else if (k->ntrips != first->ntrips) {
            oklc_model_diag(c, DIAG_NOTE, at(k),
                            "this @inner loop runs %lld times and the one at line %u %lld times: "
                            "the threads beyond the shorter loop wait in it",
                            (long long)k->ntrips, oklc_model_line(c, at(first)),
                            (long long)first->ntrips);
            return;
        }
    }
    for (size_t i = 0; i < l->nkids; i++)
        uneven_inner(c, l->kids[i]);
}

/* [[cl::reqd_work_group_size(x, y, z)]] is every nest's block: one known
 * at translation must be it (one known at launch is the launch's check). */
static void required_block(oklc_ctx *c, const Kernel *k, const Loop *top)
{
    int64_t want[3], have[3];
    if (!oklc_model_sizes(k->reqd_wgs, want) || !positive_constants(k->reqd_wgs, 3))
        return;                            /* (reported) */
    oklc_model_block(k, top, have);
    for (int a = 0; a < 3; a++)
        if (have[a] >= 0 && have[a] != want[a]) {
            oklc_model_error(c, k->reqd_wgs->off, "the @inner loops of the @outer loop at line "
                             "%u run %lld threads on axis %d, but 'cl::reqd_work_group_size' "
                             "requires %lld x %lld x %lld", oklc_model_line(c, at(top)),
                             (long long)have[a], a, (long long)want[0], (long long)want[1],
                             (long long)want[2]);
            return;
        }
}

/* OpenCL's kernel attributes: sizes that are positive integer constants. */
static void kernel_cl_attrs(oklc_ctx *c, const Kernel *k)
{
    const Attr *sized[2] = {k->reqd_wgs, k->wgs_hint};
    for (int i = 0; i < 2; i++)
        if (sized[i] && !positive_constants(sized[i], 3))
            oklc_model_error(c, sized[i]->off, "the sizes of '%s' must be positive integer "
                             "constants", sized[i]->name);
}

void oklc_sema_loops(oklc_ctx *c, Kernel *k, const ParseOptions *o, bool has_inner)
{
    kernel_cl_attrs(c, k);
    for (size_t i = 0; i < k->nloops; i++) {
        Loop *l = k->loops[i];
        if (l->kind == LOOP_INNER && !l->parent)
            oklc_model_error(c, at(l), "an @inner loop must be inside an @outer loop");
        loop_checks(c, l);
    }
    for (size_t i = 0; i < k->nloops; i++) {
        Loop *top = k->loops[i];
        if (top->parent || top->kind != LOOP_OUTER || !has_inner)
            continue;
        while (hoist_outers(c, k, top))
            ;
        Nest n = {c, k, o, {0}, NULL, 0, false};
        shape(&n, top, 0, 0);
        if (n.failed)
            continue;
        count_axes(top, 0, 0, depth_of(top, LOOP_OUTER), depth_of(top, LOOP_INNER));
        const Loop *path[2 * MAX_LEVELS + 2];
        distinct_axes(c, top, path, 0);
        if (k->reqd_wgs)
            required_block(c, k, top);
        if (o->wall)
            uneven_inner(c, top);
    }
}
