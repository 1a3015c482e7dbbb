/*
 * cpu_shape.c - loops shaped so a CPU runs them as fast as code written
 * for it: OKL code is written for GPUs, whose threads want other shapes.
 *
 * Takes one loop at a time, after the split, the fusion and the early
 * interchange (and a top-level @outer loop's nest, for its order); gives
 * the loop's header or the whole loop edited, true when it changed it.
 * Calls cpu_counts.c below it for a grid-stride loop's counting copies.
 *
 *   guards     `if (t < alive)` in an @inner loop becomes its bounds
 *   grid-stride loops   `for (n = base + t; n < end; n += T)` in an @inner
 *              loop over t runs as one loop over the elements, in order
 *   loop order a GPU-style tiled nest (by, bx, ty, tx) runs by axis
 *              (by, ty, bx, tx), walking memory in order
 *   tiles merged  then bx and tx, used only as x = bx * T + tx, run as one
 *              loop over x: a row in one loop, not in pieces of T
 *
 * Each applies only where it cannot change the result: the conditions are
 * with each function.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* `for (t = 0; t < 256; ++t) if (t < alive) S` walks 256 iterations to do
 * `alive` of them, and the branch keeps the compiler from vectorising S:
 * the guard's terms become the loop's bounds,
 * `for (t = 0; t < (256 < alive ? 256 : alive); ++t) S`. The usual forms
 * of OKL guards qualify: the iterator, or a local `const int n = base + t`
 * declared before the if, compared with an expression the loop cannot
 * change (no call, subscript, dereference or side effect; variables from
 * outside the loop that it never writes, or locals declared from those);
 * a term that does not involve the iterator at all makes the loop empty
 * when false. The statements before the if may only declare (they would
 * otherwise be skipped for the iterations the bounds remove). */

typedef struct Local {
    const Var  *v;
    const char *value;         /* its initializer, in parentheses */
    bool        affine;        /* value = iterator + offset */
    const char *offset;        /* NULL: the iterator itself */
} Local;

/* An @outer loop over tiles and the @inner loop in a tile, of one axis,
 * run as one loop over the elements (see "tiles of one axis merged"). */
typedef struct Merge {
    const Loop *outer, *inner;  /* bx, tx */
    const char *name;           /* the one loop's iterator: _occa_bx_tx */
    Range      *uses;           /* every `bx * T + tx` in the body */
    size_t      nuses;
} Merge;

typedef struct Guard {
    const Loop  *l;
    const Merge *merge;        /* l is the inner loop of this merge, or NULL */
    const Stmt  *body;         /* what each iteration runs: l's body, or NULL for it */
    const Var   *outside;      /* declared in l but run outside it (a thread's loop
                                  interchanged with l: its iterator), or NULL */
    Local       *locals;       /* the declarations before the if */
    size_t       nlocals;
    const char  *lo, *hi;      /* max of the lower bounds, min of the upper (exclusive) */
    const char  *when;         /* terms without the iterator, joined by && */
} Guard;

/* Is r the guarded loop's iterator: its name, or for a merged loop one
 * of the `bx * T + tx` it stands for? */
/* r trimmed, without parentheses around all of it: `(t)`, `((b * 4 + k)
 * * 256 + (t))` as a macro writes them. */
static Range unwrapped(const char *t, Range r)
{
    for (r = oklc_cpu_trimmed(t, r.begin, r.end); r.end - r.begin >= 2 && t[r.begin] == '(';) {
        int depth = 0;
        uint32_t p = r.begin;
        for (; p < r.end; p++) {
            depth += t[p] == '(' ? 1 : t[p] == ')' ? -1 : 0;
            if (!depth)
                break;
        }
        if (p != r.end - 1)
            break;                              /* (a) + (b) */
        r = oklc_cpu_trimmed(t, r.begin + 1, r.end - 1);
    }
    return r;
}

static bool is_iter(const char *t, const Guard *g, Range r)
{
    r = unwrapped(t, r);
    if (!g->merge)
        return oklc_cpu_text_is(t, r, g->l->iter);
    for (size_t i = 0; i < g->merge->nuses; i++)
        if (g->merge->uses[i].begin == r.begin && g->merge->uses[i].end == r.end)
            return true;
    return false;
}

static const Local *local_at(const Guard *g, uint32_t off)
{
    for (size_t i = 0; i < g->nlocals; i++)
        for (size_t r = 0; r < g->locals[i].v->nrefs; r++)
            if (g->locals[i].v->refs[r].begin == off)
                return &g->locals[i];
    return NULL;
}

/* Is v a signed integer (its canonical type: typedefs such as dlong
 * count)? Bounds are rewritten arithmetic (i < n with i = base + t is
 * t < n - base), true of signed values only: unsigned ones wrap around
 * (n - base past zero). */
static bool signed_int(const Var *v)
{
    return v && v->is_signed && !v->type.pointer && !v->type.array && !v->type.reference;
}

/* Does [b, e) have an unsigned number (10u, 0xffU), a sizeof, or a
 * cast's unsigned type ((unsigned), (size_t), (uint32_t), a C++ cast)? */
static bool unsigned_terms(const char *t, uint32_t b, uint32_t e)
{
    for (uint32_t p = b; p < e;) {
        uint32_t q = p;
        while (q < e && oklc_ident_char(t[q]))
            q++;
        if (q == p) {
            p++;
            continue;
        }
        bool number = isdigit((unsigned char)t[p]);
        for (uint32_t i = p; i < q; i++)
            if (number && (t[i] == 'u' || t[i] == 'U'))
                return true;
        static const char *const words[] = {"sizeof", "unsigned", "size_t", "static_cast",
                                            "reinterpret_cast", "uintptr_t"};
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (q - p == strlen(words[w]) && !strncmp(t + p, words[w], q - p))
                return true;
        if (q - p > 6 && !strncmp(t + p, "uint", 4) && !strncmp(t + q - 2, "_t", 2))
            return true;                        /* uint32_t, uint_fast64_t */
        p = q;
    }
    return false;
}

/* [b, e) as an expression the loop cannot change, with the locals of the
 * guard replaced by their values; NULL if it is not one. A number (for a
 * bound: `numeric`) only of signed integers. */
static const char *invariant(Cpu *C, const Guard *g, uint32_t b, uint32_t e, bool numeric)
{
    const char *t = C->E->nz->text;
    const Loop *l = g->l;
    if (b >= e || !oklc_cpu_pure_in(C, (Range){b, e}, false) ||
        (numeric && unsigned_terms(t, b, e)))
        return NULL;
    Buf out;
    oklc_buf_init(&out, C->a);
    uint32_t pos = b;
    for (;;) {
        uint32_t next = e;
        const Var *v = NULL;
        for (size_t i = 0; i < C->k->nparams + C->k->nlocals; i++) {
            const Var *w = i < C->k->nparams ? C->k->params[i] : C->k->locals[i - C->k->nparams];
            for (size_t r = 0; r < w->nrefs; r++)
                if (w->refs[r].begin >= pos && w->refs[r].begin < next)
                    next = w->refs[r].begin, v = w;
        }
        oklc_buf_putn(&out, t + pos, next - pos);
        if (!v)
            break;
        const Local *lc = local_at(g, next);
        if (lc && lc->value) {
            oklc_buf_puts(&out, lc->value);     /* a value the loop cannot change */
        } else if ((v != g->outside &&
                    (oklc_cpu_exclusive(v) || oklc_in_range(l->stmt, v->name_off) ||
                     oklc_cpu_written_in(C, v, l->stmt) ||
                     (g->merge && v->name_off == g->merge->outer->iter_off))) ||
                   (numeric && !signed_int(v))) {
            return NULL;          /* per thread, changed by the loop, merged into it, unsigned */
        } else {
            oklc_buf_puts(&out, v->name);
        }
        pos = next + (uint32_t)strlen(v->name);
    }
    return out.data ? out.data : "";
}

/* x + 1, folded when x is a number. */

/* *b = min(*b, v) for an upper bound, max(*b, v) for a lower one. */
static void tighten(Cpu *C, const char **b, const char *v, bool upper)
{
    long long x, y;
    if (*b && oklc_cpu_literal(*b, &x) && oklc_cpu_literal(v, &y))
        *b = (upper ? y < x : y > x) ? v : *b;
    else
        *b = !*b ? v
                 : oklc_arena_printf(C->a, upper ? "(%s < %s ? %s : %s)" : "(%s > %s ? %s : %s)",
                                     oklc_cpu_op(C, *b), oklc_cpu_op(C, v), oklc_cpu_op(C, *b),
                                     oklc_cpu_op(C, v));
}

/* A side of a comparison that is the iterator plus an offset: "t", or a
 * local declared as base + t. */
static bool on_iterator(Cpu *C, const Guard *g, Range side, const char **offset)
{
    const char *t = C->E->nz->text;
    *offset = NULL;
    side = unwrapped(t, side);
    if (is_iter(t, g, side))
        return true;
    const Local *lc = local_at(g, side.begin);
    if (!lc || !lc->affine || !oklc_cpu_text_is(t, side, lc->v->name))
        return false;
    *offset = lc->offset;
    return true;
}

/* One term of the guard: "t < X", "X >= n", "t == X" as bounds, or a
 * condition without the iterator. */
static bool bound_term(Cpu *C, Guard *g, uint32_t b, uint32_t e)
{
    const char *t = C->E->nz->text;
    int depth = 0;
    uint32_t at = 0, len = 0, n = 0;
    bool bitwise = false;       /* `t < n & m` is (t < n) & m */
    for (uint32_t p = b; p < e; p++) {
        if (strchr("([{", t[p]))
            depth++;
        else if (strchr(")]}", t[p]))
            depth--;
        else if (!depth && strchr("&|^", t[p]))
            bitwise = true;
        else if (t[p] == '>' && p > b && t[p - 1] == '-')
            continue;                           /* -> */
        else if (!depth && (t[p] == '<' || t[p] == '>')) {
            if (t[p + 1] == t[p])
                return false;                   /* a shift */
            at = p, len = t[p + 1] == '=' ? 2 : 1, n++;
            p += len - 1;
        } else if (!depth && t[p] == '=' && t[p + 1] == '=') {
            at = p, len = 2, n++;
            p++;
        } else if (!depth && t[p] == '!' && t[p + 1] == '=') {
            at = p, len = 2, n++;
            p++;
        }
    }
    Range all = oklc_cpu_trimmed(t, b, e);
    const char *whole = invariant(C, g, all.begin, all.end, false);
    if (whole) {                                /* no iterator: the loop runs or not */
        g->when = g->when ? oklc_arena_printf(C->a, "%s && %s", g->when, oklc_cpu_op(C, whole))
                          : oklc_cpu_op(C, whole);
        return true;
    }
    if (n != 1 || t[at] == '!' || bitwise)
        return false;
    Range left = oklc_cpu_trimmed(t, b, at), right = oklc_cpu_trimmed(t, at + len, e);
    const char *offset;
    bool iter_left = on_iterator(C, g, left, &offset);
    if (!iter_left && !on_iterator(C, g, right, &offset))
        return false;
    Range xr = iter_left ? right : left;
    const char *x = invariant(C, g, xr.begin, xr.end, true);
    if (!x)
        return false;
    x = oklc_cpu_op(C, x);
    if (offset)                                 /* base + t CMP X: t CMP X - base */
        x = !strcmp(x, "0") ? oklc_arena_printf(C->a, "-%s", oklc_cpu_op(C, offset))
                            : oklc_arena_printf(C->a, "(%s - %s)", x, oklc_cpu_op(C, offset));
    const char *x1 = oklc_cpu_plus_one(C, x);
    if (t[at] == '=') {                         /* t == X: [X, X + 1) */
        tighten(C, &g->lo, x, false);
        tighten(C, &g->hi, x1, true);
        return true;
    }
    bool less = t[at] == '<', eq = len == 2;
    if (less == iter_left)                      /* t < X, X > t */
        tighten(C, &g->hi, eq ? x1 : x, true);
    else
        tighten(C, &g->lo, eq ? x : x1, false);
    return true;
}

/* A local declared before the if: its value, and whether it is the
 * iterator plus something the loop cannot change. */
static Local local_of(Cpu *C, Guard *g, const Var *v)
{
    const char *t = C->E->nz->text;
    Local lc = {v, NULL, false, NULL};
    if (v->init_form != '=' || !signed_int(v) ||
        oklc_cpu_written_in(C, v, g->l->stmt))
        return lc;
    Range init = unwrapped(t, (Range){v->init.begin, v->init.end});
    if (is_iter(t, g, init)) {
        lc.affine = true;
        return lc;
    }
    int depth = 0;
    for (uint32_t p = init.begin; p < init.end; p++) {
        depth += t[p] == '(' ? 1 : t[p] == ')' ? -1 : 0;
        if (depth || t[p] != '+' || oklc_cpu_unary(t, init.begin, p))
            continue;
        Range a = oklc_cpu_trimmed(t, init.begin, p), b = oklc_cpu_trimmed(t, p + 1, init.end);
        Range other = is_iter(t, g, a) ? b : is_iter(t, g, b) ? a : (Range){0, 0};
        const char *off = other.end ? invariant(C, g, other.begin, other.end, true) : NULL;
        if (off) {
            lc.affine = true;
            lc.offset = off;
            return lc;
        }
    }
    const char *value = invariant(C, g, init.begin, init.end, true);
    lc.value = value ? oklc_arena_printf(C->a, "(%s)", value) : NULL;
    return lc;
}

/* The loop's body: declarations without side effects, then one
 * statement, which it returns. Collects the declarations. */
static const Stmt *guard_of(Cpu *C, Guard *g)
{
    const Loop *l = g->l;
    if (!g->body && (!l->node || !l->node->nkids))
        return NULL;
    const Stmt *body = g->body ? g->body : l->node->kids[l->node->nkids - 1];
    const Stmt *const *kids = &body;
    size_t n = 1;
    if (body->kind == ST_COMPOUND)
        kids = (const Stmt *const *)body->kids, n = body->nkids;
    if (!n)
        return NULL;
    size_t nvars = 0;
    for (size_t i = 0; i + 1 < n; i++)
        nvars += kids[i]->ndecls;
    g->locals = oklc_arena_alloc(C->a, (nvars + 1) * sizeof *g->locals);
    for (size_t i = 0; i + 1 < n; i++) {
        const Stmt *d = kids[i];
        if (d->kind != ST_DECL || !d->ndecls)
            return NULL;
        for (size_t k = 0; k < d->ndecls; k++) {
            const Var *v = d->decls[k];
            if (v->init_form && !oklc_cpu_pure_in(C, v->init, true))
                return NULL;
            Local lc = local_of(C, g, v);    /* sees the locals before it only */
            g->locals[g->nlocals++] = lc;
        }
    }
    return kids[n - 1];
}

/* Can this loop have its bounds changed: an innermost @inner loop,
 * counting up by one? */
static bool boundable(Cpu *C, const Loop *l)
{
    return l->kind == LOOP_INNER && !l->nkids && (!l->tile_part || oklc_cpu_flat_tile(l)) &&
           !l->down && l->analyzed && !strcmp(l->stride, "1") &&
           (l->cmp == CMP_LT || l->cmp == CMP_LE) && !oklc_cpu_in_split(C, l->stmt.begin);
}

/* Is an operator that binds more loosely than && (||, ?:, a comma) at
 * the top level of [b, e)? Then the condition is no conjunction and no
 * term of it holds for every iteration that passes. */
static bool looser_than_and(const char *t, uint32_t b, uint32_t e)
{
    int depth = 0;
    for (uint32_t p = b; p < e; p++) {
        depth += strchr("([{", t[p]) ? 1 : strchr(")]}", t[p]) ? -1 : 0;
        if (!depth && (t[p] == '?' || t[p] == ',' || (t[p] == '|' && t[p + 1] == '|')))
            return true;
    }
    return false;
}

/* The terms of a condition (joined by &&) as bounds; false when a term is
 * not one (or the condition is no conjunction: nothing is taken then). */
static bool guard_terms(Cpu *C, Guard *g, Range cond)
{
    const char *t = C->E->nz->text;
    if (looser_than_and(t, cond.begin, cond.end))
        return false;
    bool all = true;
    int depth = 0;
    uint32_t from = cond.begin;
    for (uint32_t p = cond.begin; p <= cond.end; p++) {
        bool end = p == cond.end;
        if (!end && strchr("([{", t[p]))
            depth++;
        else if (!end && strchr(")]}", t[p]))
            depth--;
        if (end || (!depth && t[p] == '&' && t[p + 1] == '&')) {
            all &= bound_term(C, g, from, p);
            from = p + 2;
            p++;
        }
    }
    return all;
}

/* The loop's range with the guard's bounds: [*start, *end). A merged
 * loop runs over [0, tiles * T). */
static void narrowed(Cpu *C, const Guard *g, const char **start, const char **end)
{
    const Loop *l = g->merge ? g->merge->outer : g->l;
    *start = oklc_cpu_op(C, l->start);
    *end = oklc_cpu_loop_end(C, l);
    if (g->merge)
        *end = oklc_arena_printf(C->a, "%s * %lld", *end, (long long)g->l->ntrips);
    if (g->lo)
        tighten(C, start, g->lo, false);
    if (g->hi)
        tighten(C, end, g->hi, true);
    if (g->when)      /* false: no iteration */
        *end = oklc_arena_printf(C->a, "(%s ? %s : %s)", g->when, oklc_cpu_op(C, *end),
                                 oklc_cpu_op(C, *start));
}

/* "(int t = START; t < END; ++t)", the end computed once; a top-level
 * @outer loop of OpenMP (`omp parallel for`) has it in the test, where
 * OpenMP's canonical loop form wants it (one variable declared in the
 * init), and computes it once itself. */
static const char *loop_head(Cpu *C, const Guard *g, const char *start, const char *end)
{
    long long v;
    const Loop *l = g->l;
    const Loop *top = g->merge ? g->merge->outer : l->tile_part == 2 ? l->tile_other : l;
    bool canonical = C->omp && top->kind == LOOP_OUTER && !top->parent;
    const char *type = oklc_emit_iter_type(C->E, l);
    const char *it = g->merge ? g->merge->name : l->iter;
    const char *step = g->merge ? oklc_arena_printf(C->a, "++%s", it) : oklc_cpu_render(C, l->step);
    const char *end_name =
        g->merge ? oklc_arena_printf(C->a, "_occa_end_%s_%s", g->merge->outer->iter, l->iter)
                 : oklc_arena_printf(C->a, "_occa_end_%s", l->iter);
    if (oklc_cpu_literal(end, &v) || !strncmp(end, "_occa_", 6) || canonical)
        return oklc_arena_printf(C->a, "(%s %s = %s; %s < %s; %s)", type, it, start, it, end, step);
    return oklc_arena_printf(C->a, "(%s %s = %s, %s = %s; %s < %s; %s)", type, end_name, end, it,
                             start, it, end_name, step);
}

/* The loop's range [*start, *end) narrowed by the guard at the top of its
 * body, if it has one, the if gone when the bounds say it all; false if
 * nothing changes. */
static bool guarded_range(Cpu *C, Guard *g, const char **start, const char **end)
{
    const Var *it = oklc_cpu_iter_var(C, g->l);
    const Stmt *st = guard_of(C, g);
    if (!signed_int(it) || !st || st->kind != ST_IF || st->nkids != 1)
        return false;
    bool all = guard_terms(C, g, st->head);
    if (!g->lo && !g->hi && (!g->when || !all))
        return false;
    narrowed(C, g, start, end);
    if (all)     /* the bounds say it all: "if (...)" goes */
        oklc_emit_delete_stmt(C->E, st->range.begin, st->head.end + 1);
    return true;
}

/* The same as the loop's header; NULL if nothing changes. */
static const char *guarded_head(Cpu *C, Guard *g)
{
    const char *start, *end;
    return guarded_range(C, g, &start, &end) ? loop_head(C, g, start, end) : NULL;
}

/* A guard stays one on a loop of at most SHORT_LOOP iterations: the
 * constant count is unrolled or covered by one masked vector, and the
 * bounds would save a vector at most while making the count variable (a
 * random kernel's tree over 4 rows of 8 threads, t < k: 3-4% slower
 * bounded, standalone; 1.05 in diff_kernels -T, seed 7). */
enum { SHORT_LOOP = 8 };

bool oklc_cpu_guard_bounds(Cpu *C, const Loop *l)
{
    Guard g = {.l = l};
    if (l->trips_known && l->ntrips <= SHORT_LOOP)
        return false;
    const char *head = boundable(C, l) ? guarded_head(C, &g) : NULL;
    if (head)
        oklc_edit_replace(&C->E->ed, l->header.begin, l->header.end, head);
    return head != NULL;
}

/* The guard ending the body of f, a thread's loop that the interchange
 * puts outside l (`for (k = 0; k < 4; ++k) { const int i = (b * 4 + k)
 * * 256 + t; if (i < N) ... }`), as the range of l inside each of its
 * iterations: t < N - (b * 4 + k) * 256; the bounds may use f's iterator,
 * fixed while l runs there. */
bool oklc_cpu_guard_range(Cpu *C, const Loop *l, const Stmt *f, const char **start,
                          const char **end)
{
    Guard g = {.l = l, .body = f->kids[f->nkids - 1], .outside = oklc_cpu_for_var(C, f)};
    return g.outside && boundable(C, l) && guarded_range(C, &g, start, end);
}

/* The declarations before `last` that x = value needs (directly or
 * through another one), rendered: a branch of a split select declares
 * only what it uses. */
static const char *used_decls(Cpu *C, const Stmt *body, const Stmt *last, Range lhs, Range value)
{
    if (body->kind != ST_COMPOUND)
        return "";
    size_t n = 0;
    while (n < body->nkids && body->kids[n] != last)
        n++;
    bool *need = oklc_arena_alloc(C->a, (n + 1) * sizeof *need);
    for (size_t i = n; i-- > 0;) {
        const Stmt *d = body->kids[i];
        for (size_t k = 0; k < d->ndecls && !need[i]; k++) {
            need[i] = oklc_refers_in(d->decls[k], lhs) || oklc_refers_in(d->decls[k], value);
            for (size_t j = i + 1; j < n && !need[i]; j++)
                need[i] = need[j] && oklc_refers_in(d->decls[k], body->kids[j]->range);
        }
    }
    Buf b;
    oklc_buf_init(&b, C->a);
    uint32_t from = body->range.begin + 1;
    for (size_t i = 0; i < n; i++) {
        if (need[i])
            oklc_buf_puts(&b, oklc_cpu_render(C, (Range){from, body->kids[i]->range.end}));
        from = body->kids[i]->range.end;
    }
    oklc_buf_puts(&b, oklc_cpu_render(C, (Range){from, last->range.begin}));
    return b.data ? b.data : "";
}

/* `x = C ? A : B;` as the loop's last statement, C a guard on the
 * iterator (`s[t] = i < n ? v[i] : 0;`, the load of a block's data).
 * Where C holds for every iteration (every block but the last, usually)
 * the loop does x = A alone, with the loop's own bounds: a plain copy, the
 * fastest form on every CPU measured (on an AMD Zen 4 the select as
 * written, masked AVX-512 loads, ran a 2^24-float block sum 2.0-2.4 times
 * slower). A block that C cuts is split into the range where C holds, which
 * does x = A, and the rest, which does x = B: two branch-free loops
 * instead of one that selects in every iteration. Whether that pays
 * depends on the instruction set the C++ compiler targets, which only the
 * compiler knows, so the output keeps both and lets the preprocessor
 * choose: with AVX-512's masked loads GCC vectorises the select as
 * written and the split's variable-count loops were slower on a Xeon (a
 * 256-thread block load: 4.0 against 3.7 ms for doubles, 3.2 against 3.0
 * for floats); with AVX2 or SSE the select stays scalar or half
 * vectorised and the split pays (2.4 against 3.1 ms, 3.9 against 12.7). */
bool oklc_cpu_guarded_select(Cpu *C, const Loop *l)
{
    const Var *iter = oklc_cpu_iter_var(C, l);
    if (!boundable(C, l) || l->tile_part || !signed_int(iter))
        return false;
    Guard g = {.l = l};
    const Stmt *st = guard_of(C, &g);
    if (!st || st->kind != ST_EXPR)
        return false;
    const char *t = C->E->nz->text;
    uint32_t eq = 0, q = 0, colon = 0;
    int depth = 0;
    for (uint32_t p = st->range.begin; p < st->range.end && !colon; p++) {
        char ch = t[p];
        depth += strchr("([{", ch) ? 1 : strchr(")]}", ch) ? -1 : 0;
        if (depth)
            continue;
        if (ch == '=' && !eq && t[p + 1] != '=' && !strchr("<>!=", t[p - 1]))
            eq = p;
        else if (ch == '?' && eq && !q)
            q = p;
        else if (ch == ':' && q && t[p + 1] != ':' && t[p - 1] != ':')
            colon = p;
        else if (ch == '?' || ch == ',')
            return false;                               /* nested at the top: not this form */
    }
    uint32_t last = st->range.end;
    while (last > colon && (t[last - 1] == ';' || isspace((unsigned char)t[last - 1])))
        last--;
    if (!colon || !oklc_cpu_pure_in(C, (Range){st->range.begin, eq}, true))
        return false;
    Range cond = unwrapped(t, (Range){eq + 1, q});
    if (!guard_terms(C, &g, cond) || (!g.lo && !g.hi))
        return false;
    const char *start, *end;
    narrowed(C, &g, &start, &end);
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    const char *lhs = oklc_cpu_render(C, (Range){st->range.begin, eq + 1});
    Range ra = oklc_cpu_trimmed(t, q + 1, colon), rb = oklc_cpu_trimmed(t, colon + 1, last);
    const char *decls_a = used_decls(C, body, st, (Range){st->range.begin, eq}, ra);
    const char *decls_b = used_decls(C, body, st, (Range){st->range.begin, eq}, rb);
    const char *a = oklc_cpu_render(C, ra), *b = oklc_cpu_render(C, rb);
    const char *full = oklc_cpu_loop_end(C, l);
    const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
    const char *type = oklc_emit_iter_type(C->E, l), *it = l->iter;
    const char *first = oklc_cpu_op(C, l->start);
    const char *as_written = oklc_arena_printf(C->a, "%s  for %s %s\n", ind,
                                               loop_head(C, &g, first, full),
                                               oklc_cpu_render(C, body->range));
    Buf out;
    oklc_buf_init(&out, C->a);
    oklc_buf_printf(&out, "{ /* %s holds for %s in [_occa_lo_%s, _occa_hi_%s) */\n",
                    oklc_cpu_render(C, cond), it, it, it);
    oklc_buf_printf(&out, "%s  const %s _occa_lo_%s = %s, _occa_hi_%s = %s;\n", ind, type, it,
                    start, it, end);
    oklc_buf_printf(&out,
                    "%s  if (_occa_lo_%s == %s && _occa_hi_%s == %s) { /* every thread passes: "
                    "the loads alone */\n%s  for %s {%s%s %s;\n%s  }\n%s  } else {\n",
                    ind, it, first, it, full, ind, loop_head(C, &g, first, full), decls_a, lhs,
                    a, ind, ind);
    oklc_buf_printf(&out, "#if defined(__AVX512F__) /* masked loads: the select vectorises "
                          "as written, faster than split */\n%s#else\n", as_written);
    for (int k = 0; k < 3; k++) {       /* below the range, in it, above it */
        const char *from_s = k == 0   ? first
                             : k == 1 ? oklc_arena_printf(C->a, "_occa_lo_%s", it)
                                      : oklc_arena_printf(C->a,
                                                          "(_occa_hi_%s > _occa_lo_%s ? "
                                                          "_occa_hi_%s : _occa_lo_%s)",
                                                          it, it, it, it);
        const char *to_s = k == 0 ? oklc_arena_printf(C->a, "_occa_lo_%s", it)
                         : k == 1 ? oklc_arena_printf(C->a, "_occa_hi_%s", it) : full;
        if (k == 0 && !g.lo)
            continue;                             /* no iteration below the guard */
        oklc_buf_printf(&out, "%s  for %s {%s%s %s;\n%s  }\n", ind, loop_head(C, &g, from_s, to_s),
                        k == 1 ? decls_a : decls_b, lhs, k == 1 ? a : b, ind);
    }
    oklc_buf_printf(&out, "#endif\n%s  }\n%s}", ind, ind);
    oklc_edit_replace(&C->E->ed, l->stmt.begin, l->stmt.end, out.data);
    oklc_cpu_decision(C, (Range){l->header.begin + 1, l->header.end - 1}, false,
                      "guarded select: the loads alone where every thread passes the guard; "
                      "else split where it holds and where not, the select as written when "
                      "compiled for AVX-512 (masked loads)");
    return true;
}

/* ---- grid-stride loops --------------------------------------------------------------------- */

/* The @inner loop l whose body is `{ declarations; for ... }` (or the for
 * alone), the declarations pure and free of per-thread values: its for
 * statement, else NULL. */
static const Stmt *strided_body(Cpu *C, const Loop *l, bool *braces)
{
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    *braces = body->kind == ST_COMPOUND;
    if (*braces && !body->nkids)
        return NULL;
    const Stmt *f = *braces ? body->kids[body->nkids - 1] : body;
    for (size_t i = 0; *braces && i + 1 < body->nkids; i++) {
        const Stmt *d = body->kids[i];
        if (d->kind != ST_DECL || oklc_cpu_per_thread(C, d->range, l))
            return NULL;
        for (size_t k = 0; k < d->ndecls; k++)
            if (d->decls[k]->init_form && !oklc_cpu_pure_in(C, d->decls[k]->init, true))
                return NULL;
    }
    return f;
}

/* An @inner loop that may run its threads' strided slices otherwise:
 * counting up from 0 by 1, innermost, not tiled. */
static bool strided_loop(const Loop *l)
{
    return l->kind == LOOP_INNER && !l->nkids && !l->tile_part && !l->down && l->analyzed &&
           !strcmp(l->stride, "1") && !strcmp(l->start, "0") && l->node && l->node->nkids;
}

/* `for (t = 0; t < T; ++t; @inner) for (n = base + t; n < end; n += T) S`
 * spreads [base, end) over the threads, each taking every T-th element (so
 * that a GPU's threads read neighbours). When S does not use t, the
 * threads are independent and each visits its elements in order, so a CPU
 * may run the elements in memory order: `for (n = base; n < end; ++n) S`.
 * The statements before the inner loop may only declare, without t. */
bool oklc_cpu_grid_stride(Cpu *C, const Loop *l)
{
    if (!strided_loop(l) || oklc_cpu_in_split(C, l->stmt.begin))
        return false;
    bool braces;
    const Stmt *f = strided_body(C, l, &braces);
    Strided s;
    if (!f || oklc_cpu_has_jump(f, true) || !oklc_cpu_strided(C, l, f, &s) || !s.by_threads ||
        oklc_cpu_per_thread(C, s.cond, l) ||
        oklc_cpu_per_thread(C, f->kids[f->nkids - 1]->range, l))
        return false;
    /* one loop over the elements, in order */
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    Buf out;
    oklc_buf_init(&out, C->a);
    oklc_buf_puts(&out, braces ? "{" : "{\n");
    if (braces)
        oklc_buf_puts(&out, oklc_cpu_render(C, (Range){body->range.begin + 1, f->range.begin}));
    else
        oklc_buf_printf(&out, "%s  ", oklc_emit_indent(C->E, l->stmt.begin));
    const char *counting = oklc_cpu_counting_loop(C, f, s.decl, s.base, s.cond);
    if (counting)
        oklc_buf_puts(&out, counting);
    else
        oklc_buf_printf(&out, "for (%s = %s; %s; ++%s)%s", s.decl, s.base,
                        oklc_cpu_render(C, s.cond), s.n,
                        oklc_cpu_render(C, (Range){f->head.end + 1, f->range.end}));
    if (braces)
        oklc_buf_puts(&out, oklc_cpu_render(C, (Range){f->range.end, body->range.end}));
    else
        oklc_buf_printf(&out, "\n%s}", oklc_emit_indent(C->E, l->stmt.begin));
    oklc_edit_replace(&C->E->ed, l->stmt.begin, l->stmt.end, out.data);
    return true;
}

/* ---- loop order ------------------------------------------------------------------------------ */

/* A perfect nest (each loop's body is the next loop; no @shared,
 * @exclusive or barrier in it) whose iterations are all independent runs
 * on a CPU in any order. GPU code tiles its index space:
 * `by, bx (@outer), ty, tx (@inner)`; walked in that order, a CPU jumps
 * between rows every few elements. Ordered by axis instead, slowest
 * first (by, ty, bx, tx), it walks memory the way the data lies. The
 * innermost loop stays innermost, and every loop's bounds may only use the
 * loops before it. */
static int by_axis_order(const void *pa, const void *pb)
{
    const Loop *a = *(const Loop *const *)pa, *b = *(const Loop *const *)pb;
    if (a->axis != b->axis)
        return a->axis > b->axis ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind == LOOP_OUTER ? -1 : 1;
    return a->level < b->level ? -1 : a->level > b->level;
}

enum { NEST_MAX = 6 };   /* loops in a nest reordered */

static size_t perfect_nest(const Loop *top, const Loop **chain, size_t max)
{
    size_t n = 0;
    for (const Loop *l = top;; l = l->kids[0]) {
        if (n == max || l->tile_part || !l->analyzed || !l->node || !l->node->nkids)
            return 0;
        chain[n++] = l;
        const Stmt *body = l->node->kids[l->node->nkids - 1];
        if (!l->nkids)
            return body->has_barrier ? 0 : n;
        if (body->kind == ST_COMPOUND && body->nkids == 1)
            body = body->kids[0];
        if (l->nkids != 1 || body != l->kids[0]->node)
            return 0;
    }
}

/* The nest under top in the order by axis; returns its length (0: not a
 * perfect nest of at least 3 loops, or its loops cannot run in that order). */
static size_t nest_order(Cpu *C, const Loop *top, const Loop **chain, const Loop **order)
{
    size_t n = perfect_nest(top, chain, NEST_MAX);
    if (n < 3)
        return 0;
    memcpy(order, chain, n * sizeof *order);
    qsort(order, n, sizeof *order, by_axis_order);
    if (order[n - 1] != chain[n - 1])
        return 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (oklc_cpu_header_uses(C, order[i], order[j]))
                return 0;                    /* a bound needs a loop that would come later */
    return n;
}

/* ---- tiles of one axis merged ---------------------------------------------------------------
 * Ordered by axis, a tiled nest ends in bx (@outer, over the tiles) and tx
 * (@inner, in a tile): one row walked in pieces of T elements, each piece a
 * loop of its own with its set-up (and a vectorised loop's prologue and
 * epilogue). When the body uses bx and tx only as x = bx * T + tx (both
 * counting up by one from 0, T the trip count of tx), the two run as one
 * loop over x, `_occa_bx_tx` from 0 to tiles * T: the same iterations in
 * the same order. A guard on x then bounds that loop (see guards). */

/* The token of identifier characters, or the one punctuator, at p (after
 * blanks): its range. */
static Range token_at(const char *t, uint32_t p, uint32_t end)
{
    p = oklc_cpu_skip_blanks(t, p, end);
    uint32_t e = p;
    while (e < end && oklc_ident_char(t[e]))
        e++;
    return (Range){p, e > p ? e : p < end ? p + 1 : p};
}

/* The token that ends just before p (before blanks). */
static Range token_before(const char *t, uint32_t from, uint32_t p)
{
    while (p > from && isspace((unsigned char)t[p - 1]))
        p--;
    uint32_t b = p;
    while (b > from && oklc_ident_char(t[b - 1]))
        b--;
    return (Range){b < p ? b : p > from ? p - 1 : p, p};
}

/* Tokens a, ..., matched from `at` forwards: "" matches the tile size.
 * Returns the end of the last one, or 0. */
static uint32_t match_tokens(const char *t, uint32_t at, uint32_t end, const char *const *tok,
                             size_t n, const char *size, Range *first)
{
    for (size_t i = 0; i < n; i++) {
        Range r = token_at(t, at, end);
        if (!oklc_cpu_text_is(t, r, *tok[i] ? tok[i] : size))
            return 0;
        if (!i)
            *first = r;
        at = r.end;
    }
    return at;
}

/* `bx * T + tx` (or T * bx + tx, tx + bx * T, tx + T * bx) around the use
 * of bx at `at`, where nothing next to it binds tighter than its +: its
 * range, or {0, 0}. */
static Range merged_use(const char *t, Range body, const Merge *m, const Var *tx, uint32_t at,
                        const char *size)
{
    const char *bx = m->outer->iter, *ix = m->inner->iter;
    const char *const forms[4][5] = {{bx, "*", "", "+", ix}, {"", "*", bx, "+", ix},
                                     {ix, "+", bx, "*", ""}, {ix, "+", "", "*", bx}};
    const int bx_at[4] = {0, 2, 2, 4};
    for (int f = 0; f < 4; f++) {
        /* step back from bx to where the form would begin */
        uint32_t b = at;
        for (int k = 0; k < bx_at[f]; k++)
            b = token_before(t, body.begin, b).begin;
        Range first = {0, 0};
        uint32_t e = match_tokens(t, b, body.end, forms[f], 5, size, &first);
        if (!e || first.begin != b)
            continue;
        Range txr = f < 2 ? token_before(t, body.begin, e) : first;
        if (!oklc_cpu_refers_at(tx, txr.begin))
            continue;
        Range prev = token_before(t, body.begin, b), next = token_at(t, e, body.end);
        /* the operators around it bind less tightly than + (or are a +
         * before it, which adds from the left) */
        char p = prev.end > prev.begin ? t[prev.begin] : '(', q = t[next.begin];
        char p0 = prev.begin > body.begin ? t[prev.begin - 1] : ' ', q1 = t[next.begin + 1];
        bool p_ok = p && strchr("(,[{;=?:<>&|^+", p) && !(p == '+' && p0 == '+') &&
                    !(p == '&' && p0 != '&' && oklc_cpu_unary(t, body.begin, prev.begin));
        bool q_ok = q && strchr("),]};?:<>=&|^+-", q) && !(q == '=' && q1 != '=') &&
                    !(q == '+' && q1 == '+') && !(q == '-' && (q1 == '-' || q1 == '>'));
        if (!p_ok || !q_ok)
            continue;
        return (Range){b, e};
    }
    return (Range){0, 0};
}

/* Every use of bx and tx in tx's body inside one of the forms. */
static bool merged_uses(Cpu *C, Merge *m)
{
    const char *t = C->E->nz->text;
    const Loop *tx = m->inner;
    const Var *bv = oklc_cpu_iter_var(C, m->outer), *tv = oklc_cpu_iter_var(C, tx);
    if (!bv || !tv || !tx->node || !tx->node->nkids)
        return false;
    Range body = tx->node->kids[tx->node->nkids - 1]->range;
    const char *size = oklc_arena_printf(C->a, "%lld", (long long)tx->ntrips);
    m->uses = oklc_arena_alloc(C->a, (bv->nrefs + 1) * sizeof *m->uses);
    for (size_t i = 0; i < bv->nrefs; i++) {
        if (!oklc_in_range(body, bv->refs[i].begin))
            continue;
        Range u = merged_use(t, body, m, tv, bv->refs[i].begin, size);
        if (!u.end)
            return false;
        m->uses[m->nuses++] = u;
    }
    for (size_t i = 0; i < tv->nrefs; i++) {
        bool in_use = false;
        for (size_t u = 0; u < m->nuses && !in_use; u++)
            in_use = oklc_in_range(m->uses[u], tv->refs[i].begin);
        if (oklc_in_range(body, tv->refs[i].begin) && !in_use)
            return false;
    }
    return true;
}

/* Counts up by one from 0, with `<`? */
static bool plain_count(const Loop *l)
{
    return l->analyzed && !l->tile_part && !l->down && !strcmp(l->stride, "1") &&
           !strcmp(l->start, "0") && l->cmp == CMP_LT;
}

/* Can l, the innermost loop of its nest, run merged with the @outer loop
 * of its axis? Fills m if so. */
static bool merge_of(Cpu *C, const Loop *l, Merge *m)
{
    if (l->kind != LOOP_INNER || l->nkids || !plain_count(l) || !l->trips_known ||
        l->ntrips <= 0 || oklc_cpu_in_split(C, l->stmt.begin))
        return false;
    const Loop *top = l;
    while (top->parent)
        top = top->parent;
    const Loop *chain[NEST_MAX], *order[NEST_MAX];
    size_t n = nest_order(C, top, chain, order);
    if (n < 4)
        return false;        /* the loop before the pair stays the parallel one */
    const Loop *bx = order[n - 2];
    if (bx->kind != LOOP_OUTER || bx->axis != l->axis || !plain_count(bx) ||
        oklc_cpu_header_uses(C, l, bx))
        return false;
    *m = (Merge){bx, l, oklc_arena_printf(C->a, "_occa_%s_%s", bx->iter, l->iter), NULL, 0};
    return merged_uses(C, m);
}

bool oklc_cpu_merge_tiles(Cpu *C, const Loop *l)
{
    Merge m;
    if (!merge_of(C, l, &m))
        return false;
    for (size_t i = 0; i < m.nuses; i++)
        oklc_edit_replace(&C->E->ed, m.uses[i].begin, m.uses[i].end, m.name);
    Guard g = {.l = l, .merge = &m};
    const char *head = guarded_head(C, &g);
    if (!head) {
        const char *start, *end;
        narrowed(C, &g, &start, &end);
        head = loop_head(C, &g, start, end);
    }
    oklc_edit_replace(&C->E->ed, l->header.begin, l->header.end, head);
    return true;
}

/* Returns the new order's length (0: the nest stays as it is). */
size_t oklc_cpu_reorder_nest(Cpu *C, const Loop *top, const Loop **order)
{
    const Loop *chain[NEST_MAX];
    size_t n = nest_order(C, top, chain, order);
    for (size_t i = 0; n && i < C->interchanged.len; i++)
        if (C->interchanged.data[i] == chain[n - 1])
            return 0;                        /* its inner loops are rewritten already */
    Merge m;
    bool merged = n && merge_of(C, chain[n - 1], &m);
    if (!n || (!merged && !memcmp(order, chain, n * sizeof *order)))
        return 0;
    const char *ind = oklc_emit_indent(C->E, top->stmt.begin);
    Buf b;
    oklc_buf_init(&b, C->a);
    size_t shown = merged ? n - 1 : n;     /* a merged bx has no loop of its own */
    for (size_t i = 0; i < shown; i++) {
        const Loop *l = order[i + (merged && i == n - 2)];
        const char *head =
            l == chain[n - 1]
                ? oklc_cpu_render(C, l->header) /* it may have new bounds */
                : oklc_arena_printf(C->a, "(%s %s = %s; %s %s %s; %s)", oklc_emit_iter_type(C->E, l),
                                    l->iter, l->start, l->iter, oklc_cmp_spelling(l->cmp), l->bound,
                                    oklc_cpu_render(C, l->step));
        oklc_buf_printf(&b, "%s%*sfor %s%s", i ? "\n" : "", i ? (int)(strlen(ind) + 2 * i) : 0,
                        i ? "" : "", head, i + 1 < shown ? " {" : " ");
    }
    const Stmt *body = chain[n - 1]->node->kids[chain[n - 1]->node->nkids - 1];
    oklc_buf_puts(&b, oklc_cpu_render_stmt(C, body));
    for (size_t i = shown - 1; i-- > 0;)
        oklc_buf_printf(&b, "\n%s%*s}", ind, (int)(2 * i), "");
    oklc_edit_replace(&C->E->ed, top->stmt.begin, top->stmt.end, b.data);
    return n;
}
