/*
 * races.c - two threads of a block at one element of @shared memory
 * between two barriers, as an isl set; the errors and the barriers that
 * follow.
 *
 * Each access is written once as isl constraints over its own variables
 * (`%` stands for the thread: 1 or 2): the iterators of its @inner loops
 * and the thread on each axis (it = start + stride * x), the iteration of
 * each plain loop around it (i = start + stride * m, m >= 0), the
 * conditions it runs under (what is affine of them), and its element
 * (e0, e1, ...). A pair of accesses from the same start of an interval
 * (barrier x, or the block's start) is a set of both threads' variables,
 * the relations of their iterations to x's (flow.c: the same, the next,
 * a later, the first), one element and two threads that differ; it is a
 * race when the set is not empty, and its sample point is the example
 * the message gives. Scalars of the kernel (ints it never writes) and the
 * block's @outer iterators are parameters; locals never written stand for
 * their initializers.
 *
 * Which barriers are needed: with every barrier on (the user's, a warp's,
 * and one after each top @inner loop), what still races is an error (a
 * warning where the two threads are always in one warp: warp-synchronous
 * code). Then each barrier after a loop with @nobarrier is turned off: if
 * that makes a race, the @nobarrier is an error. Then, warps' barriers off
 * (they do not order a block's threads), each automatic barrier and then
 * each of the user's is turned off in order and stays off if no more
 * instances of a pair clash without it than with it: the automatic ones
 * first, so a barrier the user wrote where it is needed stays where it is.
 * A pair of known elements clashes nowhere with every barrier on; one with
 * an element not known (any element) may, and the barrier stays where its
 * instances (the two threads, their iterations) would grow, compared as
 * isl sets.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/val.h>
#include <isl/constraint.h>
#include <isl/local_space.h>
#include <isl/space.h>

#include "analysis.h"
#include "../sema/sema.h"

/* The most isl sets built, and pairs of accesses visited, in a block: past
 * them, the block keeps the rule's barriers (the time a kernel takes to
 * translate stays bounded whatever its size). */
#define MAX_QUERIES 20000
#define MAX_VISITS 4000000

typedef struct Ref {
    uint32_t off;
    Var     *var;
} Ref;

/* An access as constraints, `%` for its thread. */
typedef struct Form {
    Buf         vars;         /* ", name" per variable */
    Buf         cons;         /* " and (...)" */
    const char *exists;       /* ", name" per existential */
    const char *iters[3];     /* per axis: the iterator's variable, NULL if none */
    const char *iter_names[3];
    const char *block_names[3];   /* cross: the @outer iterators' names, per level */
    const char *bounds;       /* the constraints but the subscripts', as text */
    const Flow *loops[16];    /* the plain loops around it, outermost first */
    int         nloops;
    const char *inexact;      /* why a subscript is not known (any element), or NULL */
    isl_set    *own;          /* its set (own_sets()) */
    const char *var[64];      /* its variables' names, in order */
    int         nvars;
} Form;

typedef struct Pair {
    int i, j;
} Pair;

/* The ways from a start to an access (flow.c's oklc_flow_reach). */
typedef struct Ways {
    int         n;
    const Flow *back[18];
} Ways;

typedef struct Races {
    oklc_ctx     *c;
    const Model  *m;
    Kernel       *k;
    isl_ctx      *isl;
    Ref          *refs;
    size_t        nrefs;
    char         *known;      /* per plain loop of the block: its iterator is known here */
    Ways         *ways;       /* per start and access (refresh()) */
    uint64_t     *reached;    /* per access, a bit per start that reaches it */
    size_t        words;      /* of `reached` per access */
    const Var   **wkeys;      /* written(): an open hash of the variables asked */
    char         *wvals;      /* 1 not written, 2 written */
    size_t        wcap;
    Block        *b;
    Form         *forms;
    Buf           params;     /* ", name" per parameter */
    char         *coarse;     /* per pair (i * n + j): 0 unknown, 1 none, 2 may */
    long          queries, visits;
    bool          over;       /* past a limit: the block keeps the rule's barriers */
    const Access *access;     /* being written */
    bool          sample;     /* keep the example */
    bool          apart;      /* the two threads in different warps too */
    long          warp_x, warp_xy;  /* the block's sizes, for a thread's linear index */
    isl_point    *point;      /* the example */
    Pair          pair;       /* of these accesses */
    isl_set     **base;       /* fewest_barriers()'s sets, while it runs */
    isl_set     **gathering;  /* clash_union()'s, while it runs */
    bool          cross;      /* the kernel's arrays: two threads of any blocks (the
                                 @outer iterators variables b0_%, b1_%, ... of each) */
    const Loop   *outers[3];  /* cross: the block's @outer levels, innermost first */
    int           levels;
} Races;

/* ---- names --------------------------------------------------------------------------------- */

static int ref_cmp(const void *x, const void *y)
{
    const Ref *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

static void index_refs(Races *R)
{
    VEC(Ref) all = {0};
    for (size_t i = 0; i < R->k->nparams + R->k->nlocals; i++) {
        Var *v = i < R->k->nparams ? R->k->params[i] : R->k->locals[i - R->k->nparams];
        for (size_t r = 0; r < v->nrefs; r++)
            vec_push(&R->c->arena, &all, ((Ref){v->refs[r].begin, v}));
    }
    if (all.len)
        qsort(all.data, all.len, sizeof *all.data, ref_cmp);
    R->refs = all.data;
    R->nrefs = all.len;
    R->wcap = 2 * (R->k->nparams + R->k->nlocals) + 1;
    R->wkeys = oklc_arena_alloc(&R->c->arena, R->wcap * sizeof *R->wkeys);
    R->wvals = oklc_arena_alloc(&R->c->arena, R->wcap);
}

static Var *var_at(Races *R, uint32_t off)
{
    size_t lo = 0, hi = R->nrefs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (R->refs[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < R->nrefs && R->refs[lo].off == off ? R->refs[lo].var : NULL;
}

/* Is v changed anywhere but in `except` (its loop's header: the same for
 * every question about one v)? Once per variable: names are resolved for
 * every access. */
static bool written(Races *R, const Var *v, Range except)
{
    size_t h = ((uintptr_t)v >> 4) % R->wcap;
    while (R->wkeys[h] && R->wkeys[h] != v)
        h = (h + 1) % R->wcap;
    if (!R->wkeys[h]) {
        R->wkeys[h] = v;
        R->wvals[h] = 1;
        for (size_t r = 0; r < v->nrefs && R->wvals[h] == 1; r++) {
            bool plain;
            if (!oklc_in_range(except, v->refs[r].begin) &&
                oklc_sema_writes(R->c, R->m, v, v->refs[r], &plain, NULL))
                R->wvals[h] = 2;
        }
    }
    return R->wvals[h] == 2;
}

static Sym resolve(void *ctx, uint32_t off)
{
    Races *R = ctx;
    Arena *a = &R->c->arena;
    Var *v = var_at(R, off);
    Sym none = {SYM_NONE, NULL, {0, 0}};
    if (!v || !v->is_int || v->type.pointer || v->type.array || v->type.reference)
        return none;
    if (v->loop_iter) {
        for (const Flow *f = R->access->at; f; f = f->parent) {
            if (f->kind == F_INNER)
                for (const Loop *l = f->loop; l && l->kind == LOOP_INNER; l = l->parent)
                    if (l->iter_off == v->name_off && !written(R, v, l->header))
                        return (Sym){SYM_NAME, oklc_arena_printf(a, "it%d_%%", l->axis), {0, 0}};
            if (f->kind == F_LOOP && f->loop && R->known[f->id] &&
                f->loop->iter_off == v->name_off && !written(R, v, f->loop->header))
                return (Sym){SYM_NAME, oklc_arena_printf(a, "i%d_%%", f->id), {0, 0}};
        }
        for (int k = 0; R->cross && k < R->levels; k++)
            if (R->outers[k]->iter_off == v->name_off && !R->outers[k]->tile_other &&
                !written(R, v, R->outers[k]->header))
                return (Sym){SYM_NAME, oklc_arena_printf(a, "b%d_%%", k), {0, 0}};
        for (const Loop *o = R->b->outer; o && !R->cross; o = o->parent)
            if (o->kind == LOOP_OUTER && o->iter_off == v->name_off && !o->tile_other &&
                !written(R, v, o->header)) {
                const char *n = oklc_arena_printf(a, "o%u", o->iter_off);
                oklc_affine_name(&R->params, n);
                return (Sym){SYM_NAME, n, {0, 0}};
            }
        return none;
    }
    if (written(R, v, (Range){0, 0}))
        return none;
    if (v->kind == VAR_PARAM) {
        const char *n = oklc_arena_printf(a, "P_%s", v->name);
        oklc_affine_name(&R->params, n);
        return (Sym){SYM_NAME, n, {0, 0}};
    }
    if (v->kind == VAR_LOCAL && v->init_form == '=' && v->init.end > v->init.begin &&
        !v->static_ && !v->shared && !v->exclusive)
        return (Sym){SYM_EXPR, NULL, v->init};
    return none;
}

static const char *at(oklc_ctx *c, uint32_t off);

/* Is r's value the same in every thread of the block? SAME: it reads no
 * @inner iterator, no @exclusive, and of the variables of an @inner loop
 * only plain loops' iterators whose headers are the same in every thread
 * and locals never written whose initializers are; MAYBE: it reads a
 * value each thread keeps (an @exclusive) and nothing worse; else OTHER. */
typedef enum Same { SAME, MAYBE, OTHER } Same;

static Same same_in_threads(Races *R, Range r, const Var *self, int depth)
{
    size_t lo = 0, hi = R->nrefs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (R->refs[mid].off < r.begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    Same worst = SAME;
    for (size_t i = lo; i < R->nrefs && R->refs[i].off < r.end && worst != OTHER; i++) {
        const Var *v = R->refs[i].var;
        bool inside = false;
        for (const Loop *l = v->loop; l && !inside; l = l->parent)
            inside = l->kind == LOOP_INNER;
        Same here = SAME;
        if (v == self || (!inside && !v->exclusive && !v->per_thread))
            continue;
        const Flow *plain = NULL;
        for (size_t l = 0; l < R->b->loops.len && v->loop_iter; l++) {
            const Flow *f = R->b->loops.data[l];
            if (f->loop && f->loop->iter_off == v->name_off)
                plain = f;
        }
        if (depth > 8)
            here = OTHER;
        else if (v->exclusive || v->per_thread || (v->typedef_var && v->typedef_var->exclusive))
            here = MAYBE;
        else if (plain)
            here = same_in_threads(R, plain->loop->header, v, depth + 1);
        else if (v->loop_iter || v->init_form != '=' || written(R, v, (Range){0, 0}))
            here = OTHER;
        else
            here = same_in_threads(R, v->init, v, depth + 1);
        worst = here > worst ? here : worst;
    }
    return worst;
}

/* ---- an access as constraints ------------------------------------------------------------------ */

static bool stride_of(const Loop *l, int64_t *s)
{
    char *e;
    long long v = strtoll(l->stride ? l->stride : "", &e, 10);
    *s = v;
    return l->stride && *l->stride && !*e && v > 0 && v < (1LL << 40);
}

static const char *cmp_isl(Cmp c, bool down)
{
    switch (c) {
    case CMP_LT: return "<";
    case CMP_LE: return "<=";
    case CMP_GT: return ">";
    case CMP_GE: return ">=";
    default: return down ? ">" : "<";
    }
}

/* var = start +- stride * (n), within the bound. */
static bool iterates(Races *R, Affine *af, Form *F, const Loop *l, const char *var,
                     const char *n, bool bounded)
{
    int64_t s;
    const char *start = oklc_affine_expr(af, l->start_at);
    const char *bound = bounded ? oklc_affine_expr(af, l->bound_at) : "0";
    if (!start || !bound || !stride_of(l, &s) || (l->cmp == CMP_NE && s != 1))
        return false;
    oklc_buf_printf(&F->cons, " and %s = %s %c %lld * (%s)", var, start, l->down ? '-' : '+',
                    (long long)s, n);
    if (bounded)
        oklc_buf_printf(&F->cons, " and %s %s %s", var, cmp_isl(l->cmp, l->down), bound);
    (void)R;
    return true;
}

/* The threads of an @inner level. */
static bool thread(Races *R, Affine *af, Form *F, const Loop *l)
{
    Arena *a = &R->c->arena;
    const char *it = oklc_arena_printf(a, "it%d_%%", l->axis);
    const char *x = oklc_arena_printf(a, "x%d_%%", l->axis);
    oklc_buf_printf(&F->vars, ", %s", it);
    F->iters[l->axis] = it;
    F->iter_names[l->axis] = l->iter;
    oklc_buf_printf(&F->cons, " and %s >= 0", x);
    if (l->tile_part != 2)
        return iterates(R, af, F, l, it, x, true);
    const Loop *t = l->tile_other;
    if (t->kind != LOOP_OUTER || t->tile_value == INT64_MIN || l->tile_value <= 0)
        return false;
    const char *ob = oklc_arena_printf(a, "ob%u", t->iter_off);
    for (int k = 0; k < R->levels && R->cross; k++)
        if (R->outers[k] == t)
            ob = oklc_arena_printf(a, "b%d_%%", k);
    if (!R->cross)
        oklc_affine_name(&R->params, ob);
    oklc_buf_printf(&F->cons, " and %s < %lld and %s >= 0", x, (long long)l->tile_value, ob);
    return iterates(R, af, F, l, it,
                    oklc_arena_printf(a, "%lld * %s + %s", (long long)l->tile_value, ob, x),
                    l->tile_check);
}

/* cross: each @outer level's iterator b<k>_% (a tile's: the tile), after
 * the threads' x0_% .. x2_%, so that two blocks differ on dims 3 .. */
static bool block_vars(Races *R, Affine *af, Form *F, const char **why)
{
    for (int k = 0; k < R->levels; k++) {
        oklc_buf_printf(&F->vars, ", b%d_%%", k);
        F->block_names[k] = R->outers[k]->tile_other ? "tile" : R->outers[k]->iter;
    }
    for (int k = R->levels - 1; k >= 0; k--) {
        const Loop *o = R->outers[k];
        const char *b = oklc_arena_printf(&R->c->arena, "b%d_%%", k);
        if (o->tile_other) {       /* a tile's index: the @inner level bounds it */
            oklc_buf_printf(&F->cons, " and %s >= 0", b);
            continue;
        }
        const char *n = oklc_arena_printf(&R->c->arena, "n%d_%%", k);
        oklc_buf_printf(&F->vars, ", %s", n);
        oklc_buf_printf(&F->cons, " and %s >= 0", n);
        if (!iterates(R, af, F, o, b, n, true)) {
            *why = "an @outer loop not of affine bounds and a constant step";
            return false;
        }
    }
    return true;
}

static bool form_of(Races *R, const Access *acc, Form *F, const char **why)
{
    Arena *a = &R->c->arena;
    Affine af;
    oklc_affine_init(&af, R->c, resolve, R,
                     oklc_arena_printf(a, "d%d_%%_", acc->at->id));
    R->access = acc;
    oklc_buf_init(&F->vars, a);
    oklc_buf_init(&F->cons, a);
    for (int x = 0; x < 3; x++)
        oklc_buf_printf(&F->vars, ", x%d_%%", x);
    if (R->cross && !block_vars(R, &af, F, why))
        return false;
    /* outermost first: a loop's bounds may read the loops around it */
    const Flow *chain[64];
    int depth = 0;
    for (const Flow *f = acc->at; f->parent; f = f->parent)
        if (depth == (int)OKLC_COUNTOF(chain)) {
            *why = "the statements nest too deeply";
            return false;
        } else {
            chain[depth++] = f;
        }
    memset(R->known, 0, R->b->loops.len);
    int used = 0;
    for (int d = depth - 1; d >= 0; d--) {
        const Flow *p = chain[d]->parent;
        if (p->kind == F_INNER) {
            for (const Loop *l = p->loop; l && l->kind == LOOP_INNER &&
                                          l->stmt.begin == p->loop->stmt.begin; l = l->parent) {
                used |= 1 << l->axis;
                if (!thread(R, &af, F, l)) {
                    *why = oklc_arena_printf(a, "the @inner loop over '%s' is not one of "
                                             "affine bounds and a constant step", l->iter);
                    return false;
                }
            }
        } else if (p->kind == F_LOOP) {
            const char *m = oklc_arena_printf(a, "m%d_%%", p->id);
            oklc_buf_printf(&F->vars, ", %s", m);
            oklc_buf_printf(&F->cons, " and %s >= 0", m);
            if (F->nloops == (int)OKLC_COUNTOF(F->loops)) {
                *why = "the loops nest too deeply";
                return false;
            }
            F->loops[F->nloops++] = p;
            const char *i = oklc_arena_printf(a, "i%d_%%", p->id);
            const char *why_before = af.why;
            size_t mark = F->cons.len;
            /* a header not affine: its iterator is a value not known */
            R->known[p->id] = p->loop && p->loop->analyzed && iterates(R, &af, F, p->loop, i, m,
                                                                          true);
            if (R->known[p->id])
                oklc_buf_printf(&F->vars, ", %s", i);
            else
                F->cons.len = mark, F->cons.data[mark] = 0, af.why = why_before;
        }
    }
    for (int d = depth - 1; d >= 0; d--)
        if (chain[d]->parent->kind == F_IF)
            oklc_buf_printf(&F->cons, " and %s",
                            oklc_affine_cond(&af, chain[d]->parent->st->head, chain[d]->index == 1));
    if (R->cross && af.weakened)      /* a write under a condition not known: no proof */
        F->inexact = "a condition that is not affine";
    for (int l = 0; R->cross && l < F->nloops; l++)
        if (!R->known[F->loops[l]->id])
            F->inexact = "a loop whose header is not affine";
    for (int x = 0; x < 3; x++)
        if (!(used >> x & 1))
            oklc_buf_printf(&F->cons, " and x%d_%% = 0", x);
    /* what bounds the instances (not the subscripts): which parameters
     * size the loops (cross: the others' values are not known) */
    F->bounds = oklc_arena_printf(a, "%s%s", F->cons.data ? F->cons.data : "",
                                  af.side.data ? af.side.data : "");
    for (int s = 0; s < acc->nsubs; s++) {
        const char *e = oklc_affine_expr(&af, acc->subs[s]);
        oklc_buf_printf(&F->vars, ", e%d_%%", s);
        if (e)
            oklc_buf_printf(&F->cons, " and e%d_%% = %s", s, e);
        else if (!F->inexact)         /* any element: it may clash, it is no proven race */
            F->inexact = oklc_arena_printf(a, "the subscript '%.*s' at %s is not affine (%s): "
                                           "it is taken as any element",
                                           (int)(acc->subs[s].end - acc->subs[s].begin),
                                           R->c->norm->text + acc->subs[s].begin,
                                           at(R->c, acc->subs[s].begin),
                                           af.why ? af.why : "?");
        af.why = NULL;
    }
    oklc_buf_puts(&F->cons, af.side.data ? af.side.data : "");
    F->exists = af.exists.data ? af.exists.data : "";
    return true;
}

/* ---- queries ----------------------------------------------------------------------------------- */

static void put_as(Buf *out, const char *text, char who)
{
    for (const char *p = text; *p; p++)
        oklc_buf_putc(out, *p == '%' ? who : *p);
}

/* The isl set of each access (its variables, `%` as 1), read once all
 * forms are written (their parameters are the block's); texts repeated
 * (unrolled code) are read once. */
static void own_sets(Races *R)
{
    NameTable seen = {0};
    for (size_t i = 0; i < R->b->acc.len; i++) {
        Form *F = &R->forms[i];
        if (!F->exists) {                        /* not written: form_of() refused it */
            F->own = NULL;
            continue;
        }
        Buf s;
        oklc_buf_init(&s, &R->c->arena);
        oklc_buf_printf(&s, "[%s] -> { [", R->params.data ? R->params.data + 2 : "");
        put_as(&s, F->vars.data + 2, '1');
        oklc_buf_puts(&s, "] : ");
        if (*F->exists) {
            oklc_buf_puts(&s, "exists (");
            put_as(&s, F->exists + 2, '1');
            oklc_buf_puts(&s, " : ");
        }
        oklc_buf_puts(&s, "0 = 0");
        put_as(&s, F->cons.data ? F->cons.data : "", '1');
        oklc_buf_puts(&s, *F->exists ? ") }" : " }");
        const char *p = F->vars.data + 2;       /* the names, for positions */
        for (F->nvars = 0; p && F->nvars < (int)OKLC_COUNTOF(F->var); F->nvars++) {
            const char *q = strchr(p, ',');
            F->var[F->nvars] = oklc_arena_strndup(&R->c->arena, p, q ? (size_t)(q - p)
                                                                     : strlen(p));
            p = q ? q + 2 : NULL;
        }
        size_t same;
        if (p)
            F->own = NULL;                       /* too many variables */
        else if (oklc_names_get(&seen, s.data, &same))
            F->own = R->forms[same].own ? isl_set_copy(R->forms[same].own) : NULL;
        else {
            F->own = isl_set_read_from_str(R->isl, s.data);
            oklc_names_put(&R->c->arena, &seen, s.data, i);
        }
        if (!F->own && !F->inexact)              /* it may clash, it proves nothing */
            F->inexact = "its constraints are more than isl was given to read";
    }
}

static int pos_of(const Form *F, const char *name)
{
    for (int v = 0; v < F->nvars; v++)
        if (!strcmp(F->var[v], name))
            return v;
    return -1;
}

/* sum(coef[k] * dim pos[k]) + cst, = 0 (eq) or >= 0 */
static isl_set *constrain(isl_set *s, bool eq, int n, const int *pos, const int *coef,
                          long cst)
{
    isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(s));
    isl_constraint *c = eq ? isl_constraint_alloc_equality(ls)
                           : isl_constraint_alloc_inequality(ls);
    for (int k = 0; k < n; k++)
        c = isl_constraint_set_coefficient_si(c, isl_dim_set, pos[k], coef[k]);
    c = isl_constraint_set_constant_si(c, cst);
    return isl_set_add_constraint(s, c);
}

/* Access F's loops (its variables from dim `at`) follow x's iterations
 * (dims from `xs`, one per loop of the block) on way `back`. */
static isl_set *relations(isl_set *s, const Form *F, int at, int xs, const Flow *x,
                          const Flow *back)
{
    for (int l = 0; l < F->nloops; l++) {
        const Flow *loop = F->loops[l];
        char name[32];
        snprintf(name, sizeof name, "m%d_%%", loop->id);
        int p[2] = {at + pos_of(F, name), xs + loop->id}, one[2] = {1, -1};
        switch (oklc_flow_rel(x, back, loop)) {
        case REL_SAME: s = constrain(s, true, 2, p, one, 0); break;
        case REL_NEXT: s = constrain(s, true, 2, p, one, -1); break;
        case REL_LATER: s = constrain(s, false, 2, p, one, -1); break;
        case REL_FIRST: s = constrain(s, true, 1, p, one, 0); break;
        case REL_ANY: break;
        }
    }
    return s;
}

/* The instances of accesses i (thread 1) and j (thread 2) at one element,
 * reached from x by ways bi and bj (`ways` false: whatever their
 * iterations), with thread 1's index on axis `differ / 2` below (even) or
 * above (odd) thread 2's; with R->apart, in different warps (`apart_order`
 * likewise). Only i's and j's variables stay; NULL if an access's own set
 * could not be read. */
static isl_set *clash_set(Races *R, int i, int j, bool ways, const Flow *x, const Flow *bi,
                          const Flow *bj, int differ, int apart_order)
{
    const Form *a = &R->forms[i], *b = &R->forms[j];
    if (!a->own || !b->own)
        return NULL;
    R->over |= ++R->queries > MAX_QUERIES;
    int na = a->nvars, nb = b->nvars, xs = na + nb, nl = (int)R->b->loops.len;
    isl_set *s = isl_set_flat_product(isl_set_copy(a->own), isl_set_copy(b->own));
    s = isl_set_add_dims(s, isl_dim_set, (unsigned)nl + 2);   /* x's loops, two warps */
    if (ways) {
        s = relations(s, a, 0, xs, x, bi);
        s = relations(s, b, na, xs, x, bj);
    }
    for (int e = 0; e < R->b->acc.data[i].nsubs; e++) {
        char name[16];
        snprintf(name, sizeof name, "e%d_%%", e);
        int p[2] = {pos_of(a, name), na + pos_of(b, name)}, one[2] = {1, -1};
        s = constrain(s, true, 2, p, one, 0);
    }
    int ax = differ / 2, dp[2] = {ax, na + ax}, up[2] = {-1, 1}, down[2] = {1, -1};
    s = constrain(s, false, 2, dp, differ % 2 ? down : up, -1);
    if (R->apart) {
        int w1 = xs + nl, w2 = w1 + 1;
        for (int t = 0; t < 2; t++) {                 /* 32 w <= lin <= 32 w + 31 */
            int base = t ? na : 0, w = t ? w2 : w1;
            int p[4] = {base, base + 1, base + 2, w};
            int lo[4] = {1, (int)R->warp_x, (int)R->warp_xy, -32};
            int hi[4] = {-1, -(int)R->warp_x, -(int)R->warp_xy, 32};
            s = constrain(s, false, 4, p, lo, 0);
            s = constrain(s, false, 4, p, hi, 31);
        }
        int wp[2] = {w1, w2};
        s = constrain(s, false, 2, wp, apart_order ? down : up, -1);
    }
    return isl_set_project_out(s, isl_dim_set, (unsigned)xs, (unsigned)nl + 2);
}

/* Do the two threads meet (at any axis where they differ, and order of
 * their warps)? Keeps an example when asked. */
static bool clash(Races *R, int i, int j, bool ways, const Flow *x, const Flow *bi,
                  const Flow *bj)
{
    int axes = R->cross ? R->b->axes | ((1 << R->levels) - 1) << 3 : R->b->axes;
    for (int differ = 0; differ < 12; differ++) {
        if (!(axes >> (differ / 2) & 1))
            continue;
        for (int order = 0; order < (R->apart ? 2 : 1); order++) {
            isl_set *s = clash_set(R, i, j, ways, x, bi, bj, differ, order);
            if (!s)
                return true;                  /* not read: it may */
            isl_bool e = isl_set_is_empty(s);
            if (e != isl_bool_true && R->sample) {
                if (R->point)
                    isl_point_free(R->point);
                R->point = isl_set_sample_point(isl_set_copy(s));
                R->pair = (Pair){i, j};
            }
            isl_set_free(s);
            if (e != isl_bool_true)
                return true;
        }
    }
    return false;
}

/* ---- intervals --------------------------------------------------------------------------------- */

/* May accesses i and j of two threads meet at all: one array, one a write,
 * not both @atomic, not one value stored by every thread? */
static bool may_clash(Races *R, int i, int j, bool proven)
{
    const Access *a = &R->b->acc.data[i], *b = &R->b->acc.data[j];
    return a->var == b->var && (a->write || b->write) && !(a->atomic && b->atomic) &&
           !(i == j && a->uniform) && !(proven && i == j && a->maybe_uniform) &&
           !(proven && (R->forms[i].inexact || R->forms[j].inexact));
}

/* ... at one element, whatever their iterations and warps (once per pair:
 * asked only of pairs one interval holds). */
static bool coarse(Races *R, int i, int j)
{
    size_t key = (size_t)i * R->b->acc.len + (size_t)j;
    bool apart = R->apart;
    R->apart = false;
    if (!R->coarse[key])
        R->coarse[key] = clash(R, i, j, false, NULL, NULL, NULL) ? 2 : 1;
    R->apart = apart;
    return R->coarse[key] == 2;
}

/* Calls fn for each way two threads reach accesses i and j from one start
 * of an interval, with the barriers that are on; stops when it says so. */
typedef bool (*WayFn)(Races *R, int i, int j, const Flow *x, const Flow *bi, const Flow *bj,
                      void *arg);

/* The ways from each start that is on (the block's start, then each
 * barrier) to each access, and per access the starts that reach it (bit
 * xb + 1): once per setting of the barriers. */
static void refresh(Races *R)
{
    Block *b = R->b;
    size_t n = b->acc.len, starts = b->bars.len + 1;
    oklc_flow_must(b);
    memset(R->reached, 0, n * R->words * sizeof *R->reached);
    for (size_t xb = 0; xb < starts; xb++) {
        if (xb && !b->bars.data[xb - 1].on)
            continue;
        const Flow *x = xb ? b->bars.data[xb - 1].at : NULL;
        for (size_t i = 0; i < n; i++) {
            Ways *w = &R->ways[xb * n + i];
            if (oklc_flow_reach(x, b->acc.data[i].at, w->back, &w->n))
                R->reached[i * R->words + xb / 64] |= (uint64_t)1 << (xb % 64);
        }
    }
}

static bool each_way(Races *R, int i, int j, WayFn fn, void *arg)
{
    Block *b = R->b;
    size_t n = b->acc.len;
    const Flow *ei = b->acc.data[i].at, *ej = b->acc.data[j].at;
    for (size_t word = 0; word < R->words; word++)
        for (uint64_t both = R->reached[i * R->words + word] & R->reached[j * R->words + word];
             both; both &= both - 1) {
            size_t xb = word * 64 + (size_t)__builtin_ctzll(both);
            const Flow *x = xb ? b->bars.data[xb - 1].at : NULL;
            const Ways *wi = &R->ways[xb * n + i], *wj = &R->ways[xb * n + j];
            if ((R->over |= ++R->visits > MAX_VISITS))
                return true;
            if (!coarse(R, i, j))
                return false;
            for (int p = 0; p < wi->n * wj->n; p++)
                if (oklc_flow_together(x, ei, wi->back[p / wj->n], ej, wj->back[p % wj->n]) &&
                    fn(R, i, j, x, wi->back[p / wj->n], wj->back[p % wj->n], arg))
                    return true;
        }
    return false;
}

static bool meets(Races *R, int i, int j, const Flow *x, const Flow *bi, const Flow *bj,
                  void *arg)
{
    (void)arg;
    return R->over || clash(R, i, j, true, x, bi, bj);
}

static bool gather(Races *R, int i, int j, const Flow *x, const Flow *bi, const Flow *bj,
                   void *arg)
{
    isl_set **all = arg;
    int axes = R->cross ? R->b->axes | ((1 << R->levels) - 1) << 3 : R->b->axes;
    for (int differ = 0; differ < 12; differ++) {
        if (!(axes >> (differ / 2) & 1))
            continue;
        isl_set *s = clash_set(R, i, j, true, x, bi, bj, differ, 0);
        if (!s || R->over) {
            isl_set_free(s);
            return true;                       /* unknown: stop, it may clash */
        }
        *all = *all ? isl_set_union(*all, s) : s;
    }
    return false;
}

/* The first pair of accesses that clash (two threads, one element, one
 * interval) with the barriers that are on (`proven`: of known elements);
 * false if none. */
static bool clashes(Races *R, bool proven, Pair *first)
{
    refresh(R);
    int n = (int)R->b->acc.len;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            if (may_clash(R, i, j, proven) && each_way(R, i, j, meets, NULL)) {
                *first = (Pair){i, j};
                return true;
            }
    return false;
}

/* The instances of the pair that clash with the barriers on: NULL for none;
 * *unknown when they cannot be told (an isl set not read, a limit). */
static isl_set *clash_union(Races *R, int i, int j, bool *unknown)
{
    isl_set *all = NULL;
    R->gathering = &all;
    *unknown = each_way(R, i, j, gather, &all);
    R->gathering = NULL;
    return all;
}

/* Does turning barriers off let any instances clash that did not
 * (`base`, per pair: what clashed with them on)? A pair of known elements
 * clashes nowhere with them on (else it is a race); one with an element
 * not known may already, and counts only where more instances meet. */
static bool more_clashes(Races *R, isl_set **base)
{
    refresh(R);
    int n = (int)R->b->acc.len;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            if (!may_clash(R, i, j, false))
                continue;
            if (!base[i * n + j]) {
                if (each_way(R, i, j, meets, NULL))
                    return true;
                continue;
            }
            bool unknown;
            isl_set *now = clash_union(R, i, j, &unknown);
            isl_bool sub = now && !unknown ? isl_set_is_subset(now, base[i * n + j])
                                           : isl_bool_false;
            isl_set_free(now);
            if (sub != isl_bool_true)
                return true;
        }
    return false;
}

/* ---- messages ---------------------------------------------------------------------------------- */

static const char *at(oklc_ctx *c, uint32_t off)
{
    Loc l = oklc_norm_loc(c->norm, off);
    return oklc_arena_printf(&c->arena, "%lld:%u", (long long)oklc_presumed_line(c, l), l.col);
}

/* The example's value of variable `name` (`%` in it) of thread 1 or 2. */
static long coord(Races *R, const char *name, int thread)
{
    const Form *a = &R->forms[R->pair.i], *b = &R->forms[R->pair.j];
    int pos = thread == 1 ? pos_of(a, name) : pos_of(b, name);
    if (!R->point || pos < 0)
        return 0;
    pos += thread == 1 ? 0 : a->nvars;
    isl_val *v = isl_point_get_coordinate_val(R->point, isl_dim_set, pos);
    long r = v ? isl_val_get_num_si(v) : 0;
    isl_val_free(v);
    return r;
}

/* "j=0" (the thread), or with cross "block e=1 thread j=0" */
static const char *who(Races *R, int i, int which)
{
    const Form *F = &R->forms[i];
    Buf blk, thr;
    oklc_buf_init(&blk, &R->c->arena);
    oklc_buf_init(&thr, &R->c->arena);
    for (int k = R->cross ? R->levels - 1 : -1; k >= 0; k--) {
        char var[16];
        snprintf(var, sizeof var, "b%d_%%", k);
        oklc_buf_printf(&blk, "%s%s=%ld", blk.len ? ", " : "", F->block_names[k],
                        coord(R, var, which));
    }
    for (int x = 0; x < 3; x++)
        if (F->iters[x])
            oklc_buf_printf(&thr, "%s%s=%ld", thr.len ? ", " : "", F->iter_names[x],
                            coord(R, F->iters[x], which));
    if (!R->cross)
        return thr.data ? thr.data : "?";
    return oklc_arena_printf(&R->c->arena, "block %s%s%s", blk.data ? blk.data : "?",
                             thr.data ? " thread " : "", thr.data ? thr.data : "");
}

static const char *element(Races *R, int i)
{
    const Access *a = &R->b->acc.data[i];
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_buf_puts(&b, a->var->name);
    for (int s = 0; s < a->nsubs; s++) {
        char var[32];
        snprintf(var, sizeof var, "e%d_%%", s);
        oklc_buf_printf(&b, "[%ld]", coord(R, var, 1));
    }
    return b.data;
}

static const char *does(const Access *a)
{
    return a->atomic ? "updates" : a->write && a->read ? "updates" : a->write ? "writes" : "reads";
}

/* "thread j=0 writes s[0] at 5:7, thread j=1 reads it at 6:3" */
static const char *pair_text(Races *R, Pair p)
{
    const Access *a = &R->b->acc.data[p.i], *b = &R->b->acc.data[p.j];
    const char *thread = R->cross ? "" : "thread ";
    return oklc_arena_printf(&R->c->arena, "%s%s %s %s at %s, %s%s %s it at %s", thread,
                             who(R, p.i, 1), does(a), element(R, p.i), at(R->c, a->off), thread,
                             who(R, p.j, 2), does(b), at(R->c, b->off));
}

/* ---- a block ----------------------------------------------------------------------------------- */

static void keep_rule(Races *R, const char *why, uint32_t where)
{
    if (R->c->wall)
        oklc_model_diag(R->c, DIAG_NOTE, where, "the barriers of this block are the rule's "
                        "(one after each @inner loop another follows): the analysis of its "
                        "@shared memory stops here: %s", why);
}

static void set_all(Block *b, bool on)
{
    for (size_t i = 0; i < b->bars.len; i++)
        b->bars.data[i].on = on || b->bars.data[i].fixed;
}

/* Turns barrier i off and leaves it off if no more instances clash then. */
static bool try_off(Races *R, size_t i, isl_set **base)
{
    R->b->bars.data[i].on = false;
    if (!more_clashes(R, base))
        return true;
    R->b->bars.data[i].on = true;
    return false;
}

static void user_barrier_dropped(Races *R, const Barrier *br)
{
    if (br->cond_var && br->cond.begin == br->cond.end)
        oklc_model_diag(R->c, DIAG_WARNING, br->attr->off,
                        "the '%s' at line %u lets some threads of the block skip this "
                        "@barrier, but no accesses of different threads to one element need it: "
                        "it is left out",
                        br->cond_var, oklc_model_line(R->c, br->cond.begin));
    else if (br->cond_var)
        oklc_model_diag(R->c, DIAG_WARNING, br->attr->off,
                        "this @barrier is under a condition on '%s', which differs between "
                        "threads, but no accesses of different threads to one element need it: "
                        "it is left out",
                        br->cond_var);
    else if (R->c->wall)
        oklc_model_diag(R->c, DIAG_NOTE, br->attr->off,
                        "this @barrier separates no accesses of different threads to one "
                        "element: it is left out");
}

/* Can threads of different warps be told apart (of 32: NVIDIA's, and
 * within one wave of 64 as well)? Only when the block's size is known on
 * the axes before its last (a thread's linear index). */
static bool warps_known(Races *R)
{
    int64_t size[3];
    const Loop *top = R->b->outer;
    while (top->parent)
        top = top->parent;
    oklc_model_block(R->k, top, size);
    if (((R->b->axes & 6) && size[0] < 0) || ((R->b->axes & 4) && size[1] < 0))
        return false;
    R->warp_x = size[0] > 0 ? size[0] : 1;
    R->warp_xy = R->warp_x * (size[1] > 0 ? size[1] : 1);
    return R->warp_xy < (1L << 30);
}

/* A proven race: an error, or a warning where the two threads are always
 * in one warp (warp-synchronous code, as legacy reductions unroll their last
 * steps: it relies on the warp's threads running in step). */
static bool report_race(Races *R, Pair p)
{
    const Access *a = &R->b->acc.data[p.i];
    const char *same = pair_text(R, p);
    R->apart = warps_known(R);
    Pair q;
    bool across = !R->apart || clashes(R, true, &q);
    if (R->apart && across)
        p = q, a = &R->b->acc.data[p.i];
    const char *text = across ? pair_text(R, p) : same;
    R->apart = false;
    if (across) {
        oklc_model_error(R->c, a->off, "threads of a block race on @shared '%s': %s, with no "
                         "barrier between; make both @atomic, or separate them with a @barrier "
                         "(one that all threads reach)", a->var->name, text);
        return false;
    }
    oklc_model_diag(R->c, DIAG_WARNING, a->off, "threads of one warp race on @shared '%s': %s, "
                    "with no barrier between: this relies on the threads of a warp running in "
                    "step, which GPUs do not promise (NVIDIA's since Volta); separate them with "
                    "@barrier(\"warp\")", a->var->name, text);
    return true;
}

/* Is barrier f the user's, under a condition that differs between threads
 * (an error if it stays)? Not one some threads skip by leaving early: a
 * `return` skips the barriers after the loop as well. */
static bool divergent(const FlowBarrier *f)
{
    return f->user && f->user->cond_var && f->user->cond.begin != f->user->cond.end &&
           !f->fixed && !f->warp;
}

/* In order, each of the user's barriers that not all threads reach (an
 * error if it stays; a barrier oklc places between the loops, which all
 * threads reach, can do its work), each automatic barrier, then each
 * other of the user's, stays off if no more instances clash without it. */
static void fewest_barriers(Races *R)
{
    Block *b = R->b;
    size_t n = b->acc.len;
    for (size_t i = 0; i < b->bars.len; i++)
        if (b->bars.data[i].warp)
            b->bars.data[i].on = false;
    refresh(R);
    isl_set **base = oklc_arena_alloc(&R->c->arena, n * n * sizeof *base);
    R->base = base;
    for (size_t i = 0; i < n && !R->over; i++)     /* what no barrier here keeps apart */
        for (size_t j = i; j < n && !R->over; j++) {
            bool unknown;
            if (may_clash(R, (int)i, (int)j, false) &&
                (base[i * n + j] = clash_union(R, (int)i, (int)j, &unknown)) && unknown)
                R->over = true;
        }
    for (size_t i = 0; i < b->bars.len && !R->over; i++)
        if (divergent(&b->bars.data[i]))
            b->bars.data[i].user->dropped = try_off(R, i, base);
    for (size_t i = 0; i < b->bars.len && !R->over; i++)
        if (b->bars.data[i].after && b->bars.data[i].on)
            b->bars.data[i].after->barrier_after = try_off(R, i, base) ? BARRIER_UNNEEDED
                                                                       : BARRIER_NEEDED;
    for (size_t i = 0; i < b->bars.len && !R->over; i++)
        if (b->bars.data[i].user && !b->bars.data[i].fixed && !b->bars.data[i].warp &&
            !divergent(&b->bars.data[i]))
            b->bars.data[i].user->dropped = try_off(R, i, base);
    for (size_t i = 0; i < n * n; i++)
        isl_set_free(base[i]);
    R->base = NULL;
}

static bool decide(Races *R)
{
    Block *b = R->b;
    Pair p;
    set_all(b, true);
    R->sample = true;
    if (clashes(R, true, &p) && !R->over && !report_race(R, p))
        return false;
    for (size_t i = 0; i < b->acc.len && !R->over; i++) {
        const Access *a = &b->acc.data[i];
        if (a->maybe_uniform && !a->atomic && !R->forms[i].inexact &&
            each_way(R, (int)i, (int)i, meets, NULL) && !R->over)
            oklc_model_diag(R->c, DIAG_WARNING, a->off, "threads of a block store to one element "
                            "of @shared '%s' at once: %s; harmless only where they store the "
                            "same value (it is read from a value each thread keeps)",
                            a->var->name, pair_text(R, R->pair));
    }
    bool ok = true;
    for (size_t i = 0; i < b->bars.len && !R->over; i++) {
        FlowBarrier *f = &b->bars.data[i];
        if (!f->after || !f->after->nobarrier)
            continue;
        f->on = false;
        if (clashes(R, true, &p) && !R->over) {
            oklc_model_error(R->c, f->after->nobarrier->off, "'@nobarrier' leaves out a barrier "
                             "this block needs after the loop: %s", pair_text(R, p));
            ok = false;
        }
    }
    R->sample = false;
    if (ok && !R->over)
        fewest_barriers(R);
    for (size_t i = 0; i < b->bars.len; i++) {
        FlowBarrier *f = &b->bars.data[i];
        if (R->over && f->after)                   /* undecided: as by the rule */
            f->after->barrier_after = BARRIER_BY_RULE;
        if (R->over && f->user)
            f->user->dropped = false;
        if (f->user && f->user->dropped)
            user_barrier_dropped(R, f->user);
    }
    if (R->over)
        keep_rule(R, "it has too many accesses and barriers to check", b->outer->stmt.begin);
    return ok;
}

static bool analyze_block(Races *R, Block *b)
{
    R->forms = NULL;           /* the block before's are freed: none to free now */
    R->b = b;
    if (b->refused) {
        keep_rule(R, b->refused, b->refused_at);
        return true;
    }
    if (!b->acc.len)
        return true;
    if (b->acc.len > 4096 || (b->bars.len + 1) * b->acc.len > ((size_t)1 << 18)) {
        keep_rule(R, "it has too many accesses to check", b->outer->stmt.begin);
        return true;
    }
    R->forms = oklc_arena_alloc(&R->c->arena, b->acc.len * sizeof *R->forms);
    R->known = oklc_arena_alloc(&R->c->arena, b->loops.len + 1);
    R->words = (b->bars.len + 1 + 63) / 64;
    R->reached = oklc_arena_alloc(&R->c->arena, b->acc.len * R->words * sizeof *R->reached);
    R->ways = oklc_arena_alloc(&R->c->arena, (b->bars.len + 1) * b->acc.len * sizeof *R->ways);
    R->coarse = oklc_arena_alloc(&R->c->arena, b->acc.len * b->acc.len * sizeof *R->coarse);
    R->queries = R->visits = 0;
    R->over = false;
    const char *inexact = NULL;
    for (size_t i = 0; i < b->acc.len; i++) {
        Access *acc = &b->acc.data[i];
        Same same = acc->value.end > acc->value.begin ? same_in_threads(R, acc->value, NULL, 0)
                                                      : OTHER;
        acc->uniform = same == SAME;
        acc->maybe_uniform = same == MAYBE;
        const char *why = NULL;
        if (!form_of(R, &b->acc.data[i], &R->forms[i], &why)) {
            keep_rule(R, why, b->acc.data[i].off);
            return true;
        }
        inexact = inexact ? inexact : R->forms[i].inexact;
    }
    own_sets(R);
    if (inexact && R->c->wall)
        oklc_model_diag(R->c, DIAG_NOTE, b->outer->stmt.begin, "in this block %s; a barrier "
                        "stays wherever such an access may meet another thread's", inexact);
    bool ok = decide(R);
    for (size_t i = 0; i < b->acc.len; i++)
        isl_set_free(R->forms[i].own), R->forms[i].own = NULL;
    return ok;
}

/* ---- the kernel's arrays ---------------------------------------------------------------------- */

/* Does a parameter name (P_...) occur in text t? */
static bool names_param(const char *t, const char *p)
{
    size_t n = strlen(p);
    for (const char *q = strstr(t, p); q; q = strstr(q + 1, p))
        if (!(isalnum((unsigned char)q[n]) || q[n] == '_'))
            return true;
    return false;
}

/* Do writes i and j meet whatever the values of the parameters that only
 * their subscripts read (an offset between fields: `u[n + 0 * offset]`,
 * `u[n + 1 * offset]` meet only when offset is small, which a code's
 * sizes rule out)? The parameters that size loops may take any value
 * that makes them meet. */
static bool whatever_offsets(Races *R, int i, int j)
{
    isl_set *all = NULL;
    int axes = R->b->axes | ((1 << R->levels) - 1) << 3;
    for (int differ = 0; differ < 12; differ++)
        if (axes >> (differ / 2) & 1) {
            isl_set *s = clash_set(R, i, j, false, NULL, NULL, NULL, differ, 0);
            if (!s)
                continue;
            all = all ? isl_set_union(all, s) : s;
        }
    if (!all)
        return false;
    isl_set *p = isl_set_params(all);
    const char *bi = R->forms[i].bounds, *bj = R->forms[j].bounds;
    for (int d = (int)isl_set_dim(p, isl_dim_param) - 1; d >= 0; d--) {
        const char *name = isl_set_get_dim_name(p, isl_dim_param, (unsigned)d);
        if (!name || names_param(bi, name) || names_param(bj, name))
            p = isl_set_project_out(p, isl_dim_param, (unsigned)d, 1);
    }
    isl_set *rest = isl_set_subtract(isl_set_universe(isl_set_get_space(p)), p);
    isl_bool none = isl_set_is_empty(rest);
    isl_set_free(rest);
    return none == isl_bool_true;
}

/* The most writes of a block whose pairs are checked. */
#define MAX_WRITES 32

/* Did two threads, of one block or of two, write one element of a
 * kernel's array? A warning (codes write one value from many threads on
 * purpose; what stays is one thread's), where it is proven: every
 * subscript, bound and condition on the way affine. */
static void global_writes(Races *R, Block *b)
{
    if (!b->root || !b->writes.len || b->writes.len > MAX_WRITES)
        return;
    R->levels = 0;
    for (const Loop *o = b->outer; o && o->kind == LOOP_OUTER; o = o->parent) {
        if (R->levels == 3 || (o->tile_other && o->tile_other->kind != LOOP_INNER))
            return;
        R->outers[R->levels++] = o;
    }
    VEC(Access) shared = {b->acc.data, b->acc.len, b->acc.cap};
    b->acc.data = b->writes.data, b->acc.len = b->writes.len, b->acc.cap = b->writes.cap;
    R->cross = true;
    R->b = b;
    R->apart = false;
    R->forms = oklc_arena_alloc(&R->c->arena, b->acc.len * sizeof *R->forms);
    R->known = oklc_arena_alloc(&R->c->arena, b->loops.len + 1);
    for (size_t i = 0; i < b->acc.len; i++) {
        const char *why = NULL;
        if (!form_of(R, &b->acc.data[i], &R->forms[i], &why))
            R->forms[i].inexact = why ? why : "?";
    }
    own_sets(R);
    const Var *warned = NULL;
    for (size_t i = 0; i < b->acc.len; i++)
        for (size_t j = i; j < b->acc.len; j++) {
            const Access *x = &b->acc.data[i], *y = &b->acc.data[j];
            if (x->var != y->var || x->var == warned || R->forms[i].inexact ||
                R->forms[j].inexact || !R->forms[i].own || !R->forms[j].own)
                continue;
            R->sample = true;
            bool met = clash(R, (int)i, (int)j, false, NULL, NULL, NULL);
            R->sample = false;
            if (!met || !R->point || !whatever_offsets(R, (int)i, (int)j))
                continue;
            warned = x->var;
            oklc_model_diag(R->c, DIAG_WARNING, x->off, "two threads write one element of "
                            "'%s': %s; the value left is one of theirs (if they may differ, "
                            "let one thread write it, or use @atomic)",
                            x->var->name, pair_text(R, (Pair){(int)i, (int)j}));
        }
    for (size_t i = 0; i < b->acc.len; i++)
        isl_set_free(R->forms[i].own), R->forms[i].own = NULL;
    if (R->point)
        isl_point_free(R->point), R->point = NULL;
    b->acc.data = shared.data, b->acc.len = shared.len, b->acc.cap = shared.cap;
    R->forms = NULL;           /* freed: free_isl() must not see them with the @shared list */
    R->cross = false;
    R->levels = 0;
}

/* The @barrier statements under a condition that differs between threads:
 * an error unless the analysis left them out. */
static void divergent_barriers(oklc_ctx *c, const Kernel *k)
{
    for (size_t i = 0; i < k->nbarriers; i++) {
        const Barrier *b = k->barriers[i];
        if (b->dropped || !b->cond_var || !b->loop || b->kind == BARRIER_GLOBAL)
            continue;
        if (b->cond.begin == b->cond.end)
            oklc_model_error(c, b->attr->off, "not all threads of a block reach this @barrier: "
                             "the '%s' at line %u, under a condition that differs between "
                             "threads, lets some of them skip it",
                             b->cond_var, oklc_model_line(c, b->cond.begin));
        else
            oklc_model_error(c, b->attr->off, "not all threads of a block reach this @barrier: "
                             "it is under a condition on '%s', which differs between the "
                             "threads of an @inner loop",
                             b->cond_var);
    }
}

/* A dropped barrier is no statement of the tree any more. */
static void unlink_dropped(Stmt *s)
{
    bool any = false;
    for (size_t i = 0; i < s->nkids; i++) {
        unlink_dropped(s->kids[i]);
        any |= s->kids[i]->has_barrier;
    }
    if (s->barrier && s->barrier->dropped)
        s->barrier = NULL;
    s->has_barrier = any || s->barrier;
}

/* Every isl object alive, and the context: isl's memory is not the
 * arena's, so it is given back on every way out (out of memory too). */
static void free_isl(Races *R)
{
    for (size_t i = 0; R->b && R->forms && i < R->b->acc.len; i++)
        isl_set_free(R->forms[i].own), R->forms[i].own = NULL;
    for (size_t i = 0; R->base && i < R->b->acc.len * R->b->acc.len; i++)
        isl_set_free(R->base[i]);
    if (R->gathering)
        isl_set_free(*R->gathering);
    isl_point_free(R->point);
    isl_ctx_free(R->isl);
}

static bool kernel_races(oklc_ctx *c, const Model *m, Kernel *k)
{
    int errors = c->nerrors;
    /* in the arena (not a local): what it holds is read after a longjmp */
    Races *R = oklc_arena_alloc(&c->arena, sizeof *R);
    *R = (Races){.c = c, .m = m, .k = k};
    jmp_buf here, *outer = c->arena.oom;
    if (setjmp(here)) {                      /* out of memory: isl's goes too */
        c->arena.oom = outer;
        free_isl(R);
        oklc_arena_oom(&c->arena);
    }
    R->isl = isl_ctx_alloc();
    c->arena.oom = &here;
    isl_options_set_on_error(R->isl, ISL_ON_ERROR_CONTINUE);
    oklc_buf_init(&R->params, &c->arena);
    index_refs(R);
    size_t n;
    Block **blocks = oklc_flow_blocks(c, m, k, &n);
    for (size_t i = 0; i < n; i++) {
        analyze_block(R, blocks[i]);
        global_writes(R, blocks[i]);
    }
    c->arena.oom = outer;
    free_isl(R);
    if (k->root)
        unlink_dropped(k->root);
    divergent_barriers(c, k);
    return c->nerrors == errors;
}

bool oklc_analyze(oklc_ctx *c, Model *m, const ParseOptions *o)
{
    int errors = c->nerrors;
    for (size_t i = 0; i < m->nkernels; i++) {
        oklc_private_vars(c, m, m->kernels[i]);
        /* a CPU relay (own_text): its barriers are the user's, already judged */
        if (!o->own_text)
            kernel_races(c, m, m->kernels[i]);
    }
    return c->nerrors == errors;
}
