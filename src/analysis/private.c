/*
 * private.c - a variable of a block (declared between an @outer loop and
 * its @inner loops) that an @inner loop writes with a value of its own
 * thread.
 *
 * On a GPU such a variable is one per thread; on a CPU, one per block. The
 * checks accept it where the threads agree on its value (sema/writes.c);
 * else it is one per thread on every backend (as @exclusive) when that is
 * what the kernel means: every use of it is in an @inner loop, and every
 * read of it follows a write of the whole variable by the same thread, in
 * the same iteration of every loop around both: earlier in the same @inner
 * loop body, or in an earlier @inner loop over the same threads that runs
 * whenever the reading one runs (a statement of a sequence that holds the
 * reading loop, not under a condition or a loop of its own). Real codes
 * (a point search filling a face descriptor in one loop and reading it in
 * the next) write it so. Where code between the @inner loops reads it
 * after such a loop, a GPU's threads each read their own value and a
 * CPU's block the last thread's: accepted as legacy OCCA accepts it, with
 * a warning that says so. A read no such write reaches stays an error.
 */
#include <string.h>

#include "analysis.h"
#include "../sema/sema.h"

static const Loop *inner_of(const Kernel *k, uint32_t off)
{
    const Loop *found = NULL;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->kind == LOOP_INNER && oklc_in_range(l->stmt, off) &&
            (!found || l->level > found->level))
            found = l;
    }
    return found;
}

static const Loop *top_of(const Loop *l)
{
    while (l && l->parent && l->parent->kind == LOOP_INNER)
        l = l->parent;
    return l;
}

static bool same_text(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* Do the @inner nests of a and b run the same threads? */
static bool same_threads(const Loop *a, const Loop *b)
{
    for (; a && b && a->kind == LOOP_INNER && b->kind == LOOP_INNER; a = a->parent, b = b->parent)
        if (a->axis != b->axis || !same_text(a->start, b->start) ||
            !same_text(a->bound, b->bound) || !same_text(a->stride, b->stride) ||
            a->cmp != b->cmp || a->down != b->down)
            return false;
    return (!a || a->kind != LOOP_INNER) && (!b || b->kind != LOOP_INNER);
}

/* A whole-variable write `v = ...` as an expression statement directly in
 * the body of its @inner loop l: every thread of l runs it. */
static const Stmt *every_thread_write(const Kernel *k, const Loop *l, uint32_t at)
{
    const Stmt *s = oklc_sema_stmt_at(k->root, at);
    if (s->kind != ST_EXPR || !s->parent)
        return NULL;
    const Stmt *p = s->parent->kind == ST_COMPOUND ? s->parent->parent : s->parent;
    return p == l->node ? s : NULL;
}

/* Does statement w run, in the same iteration, before every run of r?
 * w is a statement of a compound around r, before it, reached from there
 * through compounds only. */
static bool runs_before(const Stmt *w, const Stmt *r)
{
    const Stmt *seq = w->parent;
    if (!seq || seq->kind != ST_COMPOUND)
        return false;
    const Stmt *c = r;
    while (c && c->parent != seq)
        c = c->parent;
    if (!c)
        return false;
    for (size_t i = 0; i < seq->nkids; i++) {
        if (seq->kids[i] == w)
            return true;
        if (seq->kids[i] == c)
            return false;
    }
    return false;
}

typedef struct Write {
    const Loop *loop;         /* its innermost @inner loop */
    const Stmt *stmt;
    uint32_t    off;
} Write;

/* Is the read at `off` (in @inner loop l, or between them: NULL) preceded
 * by one of the writes? */
static bool reached(const Kernel *k, const Write *w, size_t nw, const Loop *l, uint32_t off)
{
    const Stmt *r = l ? top_of(l)->node : oklc_sema_stmt_at(k->root, off);
    for (size_t i = 0; i < nw; i++) {
        if (!w[i].stmt)
            continue;
        if (l && w[i].loop == l && w[i].stmt->range.end <= off)
            return true;                     /* earlier in the same body */
        const Loop *tw = top_of(w[i].loop);
        if (w[i].loop == tw && tw->node && r && (!l || (l == top_of(l) && tw != l &&
                                                        same_threads(tw, l))) &&
            runs_before(tw->node, r))
            return true;
    }
    return false;
}

typedef enum Use { USE_SHARED, USE_PRIVATE, USE_LAST } Use;

/* Every read of v follows its own thread's write (USE_PRIVATE)? Or some
 * follow, between the @inner loops, a loop where every thread wrote it
 * (USE_LAST: a CPU reads the last thread's value)? */
static Use private_use(oklc_ctx *c, const Model *m, const Kernel *k, const Var *v)
{
    VEC(Write) writes = {0};
    if (!k->root)
        return USE_SHARED;
    for (size_t r = 0; r < v->nrefs; r++) {
        const Loop *l = inner_of(k, v->refs[r].begin);
        bool plain;
        if (!oklc_sema_writes(c, m, v, v->refs[r], &plain, NULL))
            continue;
        if (!plain || !l)
            return USE_SHARED;               /* v.x = ..., v++, &v: read as well */
        Write w = {l, every_thread_write(k, l, v->refs[r].begin), v->refs[r].begin};
        vec_push(&c->arena, &writes, w);
    }
    Use use = writes.len ? USE_PRIVATE : USE_SHARED;
    for (size_t r = 0; r < v->nrefs && use != USE_SHARED; r++) {
        bool plain;
        if (oklc_sema_writes(c, m, v, v->refs[r], &plain, NULL))
            continue;
        const Loop *l = inner_of(k, v->refs[r].begin);
        if (!reached(k, writes.data, writes.len, l, v->refs[r].begin))
            use = USE_SHARED;
        else if (!l)
            use = USE_LAST;
    }
    return use;
}

void oklc_private_vars(oklc_ctx *c, const Model *m, Kernel *k)
{
    for (size_t i = 0; i < k->nlocals; i++) {
        Var *v = k->locals[i];
        uint32_t at;
        if (v->loop_iter || v->shared || v->exclusive || v->type.is_const || !v->loop ||
            v->loop->kind != LOOP_OUTER || (v->typedef_var && (v->typedef_var->shared ||
                                                              v->typedef_var->exclusive)) ||
            (at = oklc_sema_thread_write(c, m, k, v)) == UINT32_MAX)
            continue;
        Use use = private_use(c, m, k, v);
        if (use == USE_PRIVATE) {
            v->per_thread = true;
            oklc_model_diag(c, DIAG_WARNING, at,
                            "'%s' is declared between the @outer and the @inner loops, and "
                            "each thread writes its own value here before it reads it: it is "
                            "one per thread, as on a GPU; declare it @exclusive to say so",
                            v->name);
        } else if (use == USE_LAST) {
            oklc_model_diag(c, DIAG_WARNING, at,
                            "'%s' is declared between the @outer and the @inner loops, each "
                            "thread writes it here, and code between the @inner loops reads "
                            "it: on a GPU each thread reads its own value, on the CPU "
                            "backends the block reads the last thread's; they agree only "
                            "where all threads write the same value",
                            v->name);
        } else {
            oklc_model_error(c, at, "'%s' is declared between the @outer and the @inner loops, "
                             "and here an @inner loop writes it where the threads may not all "
                             "write the same value: make it @exclusive (one per thread) or "
                             "@shared (one per block)",
                             v->name);
        }
    }
}
