/*
 * cpu_hoist.c - a @shared array that every block sets alike, set once
 * before the blocks.
 *
 * GPU kernels stage in @shared memory what a block's threads read many
 * times, and often that is the same in every block: a spectral-element
 * operator's derivative matrix (`s_D[j][i] = D[j * Nq + i]` in each
 * element), a filter's weights. On a CPU each block is an iteration of the
 * @outer loop, and each copies the array again: a load and a store per
 * element (two where cpu_transpose.c keeps a transposed copy) for every
 * block, in the nest that also reads the block's own data. Where the
 * array's only store sets it from values that are the same in every
 * block, the array is declared before the top-level @outer loop and the
 * store runs there once, in its @inner loops, if that loop runs at all;
 * with OpenMP each thread starts from a copy of its own (gradient of
 * bench/compare, 8192 elements on one core of an Intel Xeon: 6-10%
 * faster; docs/benchmarks.md). An array set in two places is not one
 * value for all blocks.
 *
 * The same in every block: the store's subscripts and value use the
 * iterators of the @inner loops around it, arguments and top-level
 * variables the @outer loop does not write, elements of `const` arguments
 * nothing in the kernel may write (oklc_cpu_unchanged_array), constants,
 * and pure functions (min, sqrt, ...) only. A store that is not of that
 * kind is the usual staging of a block's data: nothing to decide. One that
 * is, and stays in each block, says why in --dump-model: the array used
 * other than element by element, the store under a condition, in a loop of each thread or an @inner loop split at a
 * barrier, a jump before it (a thread that returns would not have read
 * what the copy made once reads), @outer loops that are not a rectangular
 * nest, or a block that cpu_fuse.c fused (it reads the memory in place).
 */
#include <string.h>

#include "cpu.h"

enum { MAX_LEVELS = 3 };

/* The array, its store and where they are. */
typedef struct Fill {
    const Var   *v;
    const Block *b;
    const Loop  *top;                  /* the top-level @outer loop around the block */
    const Stmt  *store;                /* `v[...] = value;` */
    uint32_t     ref;                  /* its v */
    Range        sub[OKLC_CPU_MAX_DIMS], value;
    const Loop  *levels[MAX_LEVELS];   /* the @inner loops around the store, outermost first */
    size_t       nlevels;
} Fill;

/* The innermost statement around off (a declaration for its initializer). */
static const Stmt *stmt_at(const Kernel *k, uint32_t off)
{
    const Stmt *st = k->root;
    for (const Stmt *kid; st->kind != ST_DECL && (kid = oklc_cpu_kid_at(st, off));)
        st = kid;
    return st;
}

/* Is the variable used at the same value in every block of top: an
 * iterator of the store's @inner loops, an argument or top-level variable
 * top does not write, an argument whose elements nothing writes? */
static bool same_var(Cpu *C, const Fill *f, const Var *u)
{
    for (size_t i = 0; i < f->nlevels; i++)
        if (oklc_cpu_iter_var(C, f->levels[i]) == u)
            return true;
    if (u->kind != VAR_PARAM && !(u->kind == VAR_LOCAL && u->top_level))
        return false;
    if (u->type.pointer || u->type.array)
        return u->kind == VAR_PARAM && oklc_cpu_unchanged_array(C, u);
    return !oklc_cpu_written_in(C, u, f->top->stmt);
}

/* Does r use only variables of the same value in every block? */
static bool same_vars(Cpu *C, const Fill *f, Range r)
{
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nparams + k->nlocals; i++) {
        const Var *u = i < k->nparams ? k->params[i] : k->locals[i - k->nparams];
        if (u != f->v && oklc_cpu_uses(u, r) && !same_var(C, f, u))
            return false;
    }
    return true;
}

/* Is the expression r the same in every block: such variables, no call
 * but of a pure function, no side effect? */
static bool same_value(Cpu *C, const Fill *f, Range r)
{
    return same_vars(C, f, r) && oklc_cpu_pure_in(C, r, true);
}

/* The array's one store and its parts (false: none, or two); *why: a use
 * that is neither an element read nor that store. */
static bool find_store(Cpu *C, Fill *f, const char **why)
{
    const Var *v = f->v;
    const char *t = C->E->nz->text;
    size_t dims = (size_t)v->type.array_dims;
    for (size_t r = 0; r < v->nrefs; r++) {
        Range ref = v->refs[r], sub[OKLC_CPU_MAX_DIMS];
        if (ref.begin == v->name_off)
            continue;
        const Stmt *st = stmt_at(C->k, ref.begin);
        switch (oklc_cpu_element_use(C, st, ref, dims, sub)) {
        case USE_OTHER:
            *why = "it is used other than as an element read or set with =";
            break;
        case USE_STORE:
            if (f->store)
                return false;    /* set in two places: not one value for all blocks */
            f->store = st;
            f->ref = ref.begin;
            memcpy(f->sub, sub, dims * sizeof *sub);
            break;
        case USE_READ:
            break;
        }
    }
    if (!f->store || f->store->kind != ST_EXPR ||
        oklc_cpu_skip_blanks(t, f->store->range.begin, f->store->range.end) != f->ref)
        return false;
    uint32_t eq = f->sub[dims - 1].end + 1, end = f->store->range.end;
    eq = oklc_cpu_skip_blanks(t, eq, end);
    if (t[eq] != '=')
        return false;
    if (end > eq && t[end - 1] == ';')
        end--;
    f->value = (Range){eq + 1, end};
    return true;
}

/* Is the store `v[...] = value;` the same in every block? */
static bool same_store(Cpu *C, Fill *f)
{
    for (size_t d = 0; d < (size_t)f->v->type.array_dims; d++)
        if (!same_value(C, f, f->sub[d]))
            return false;
    return same_value(C, f, f->value);
}

/* The @inner loops from the store up to the block's body; the first
 * reason the store cannot leave the block on the way, or NULL. */
static const char *levels_of(Fill *f)
{
    const Stmt *body = f->v->decl_stmt->parent;
    const char *why = NULL;
    const Loop *up[MAX_LEVELS];
    size_t n = 0;
    const Stmt *st = f->store->parent;
    for (; st && st != body; st = st->parent) {
        if (st->kind == ST_COMPOUND)
            continue;
        if (st->kind == ST_IF || st->kind == ST_SWITCH)
            why = why ? why : "it is set under a condition";
        else if (!st->loop || st->loop->kind != LOOP_INNER || st->loop->tile_part)
            why = why ? why : "it is set in a loop of each thread";
        else if (n == MAX_LEVELS)
            why = why ? why : "it is set in more @inner loops than a block has";
        else
            up[n++] = st->loop;
    }
    for (size_t i = 0; i < n; i++)
        f->levels[i] = up[n - 1 - i];
    f->nlevels = n;
    return why ? why : !st || !n ? "it is set outside the block's @inner loops" : NULL;
}

/* Why the store must stay in each block, or NULL. */
static const char *kept(Cpu *C, Fill *f)
{
    for (size_t i = 0; i < f->nlevels; i++) {
        const Loop *l = f->levels[i];
        if (!l->analyzed || !same_value(C, f, l->start_at) || !same_value(C, f, l->bound_at) ||
            !same_vars(C, f, l->step))
            return "the @inner loops around it may count differently in each block";
    }
    if (oklc_cpu_in_split(C, f->store->range.begin))
        return "a barrier splits its @inner loop";
    const Stmt *body = f->v->decl_stmt->parent, *nest = f->levels[0]->node;
    for (size_t i = 0; i < body->nkids && body->kids[i]->range.begin <= nest->range.begin; i++)
        if (oklc_cpu_has_jump(body->kids[i], false))
            return "a return, break, continue or goto of the block comes before it";
    for (const Loop *l = f->b->outer;; l = l->parent) {
        if (l != f->top && !oklc_cpu_collapsible(C, l->parent, l))
            return "the @outer loops around it are not a rectangular nest";
        if (!l->analyzed)
            return "an @outer loop around it has a form whose count is not known";
        if (l == f->top)
            break;
    }
    if (f->b->fused)
        return "its block's nests are fused (they read the memory in place)";
    return NULL;
}

/* The test that the blocks' loops run at all: each @outer level's first
 * iteration in its range. */
static const char *runs_at_all(Cpu *C, const Fill *f)
{
    Buf b;
    oklc_buf_init(&b, C->a);
    for (const Loop *l = f->b->outer;; l = l->parent) {
        oklc_buf_printf(&b, "%s%s %s %s", b.len ? " && " : "", oklc_cpu_op(C, l->start),
                        oklc_cmp_spelling(l->cmp), oklc_cpu_op(C, l->bound));
        if (l == f->top)
            break;
    }
    return b.data;
}

/* The array declared, and set, before the top-level @outer loop (a
 * declaration kept for all of the blocks: C->scratch; with OpenMP each
 * thread's own copy, firstprivate: one copy the threads shared, on the
 * first thread's stack, ran axhex at 0.82-0.88 of the hand-written speed
 * on two threads, its own copies at 1.28-1.36); its declaration and store
 * gone from the block. */
static void apply(Cpu *C, const Fill *f)
{
    const char *ind = oklc_emit_indent(C->E, f->top->stmt.begin);
    const char *decl = oklc_cpu_render_stmt(C, f->v->decl_stmt);
    const char *copy = oklc_cpu_transposed_name(C, f->v);
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_printf(&b, "/* @shared %s is set alike in every block: once, before them */\n"
                        "%s  %s\n%s  if (%s)",
                    f->v->name, ind, decl, ind, runs_at_all(C, f));
    for (size_t i = 0; i < f->nlevels; i++) {
        oklc_buf_putc(&b, ' ');
        oklc_cpu_open_level(C, f->levels[i], &b);
    }
    oklc_buf_printf(&b, " %s", oklc_cpu_render(C, f->store->range));
    for (size_t i = 0; i < f->nlevels; i++)
        oklc_buf_puts(&b, " }");
    const char *names = oklc_names(decl, copy)
                            ? oklc_arena_printf(C->a, "%s, %s", f->v->name, copy)
                            : f->v->name;
    vec_push(C->a, &C->scratch, ((Scratch){.top = f->top, .name = names, .decl = b.data}));
    const Stmt *d = f->v->decl_stmt;
    oklc_edit_delete(&C->E->ed, oklc_emit_stmt_start(C->E, d->range.begin), d->range.end);
    oklc_edit_delete(&C->E->ed, f->store->range.begin, f->store->range.end);
}

/* Is v declared in the body of the @outer loop around it, not deeper? */
static bool in_body(const Var *v)
{
    const Stmt *f = v->loop->node;
    return f && f->nkids && v->decl_stmt->parent == f->kids[f->nkids - 1];
}

static const Loop *top_of(const Loop *l)
{
    while (l->parent)
        l = l->parent;
    return l;
}

void oklc_cpu_hoist(Cpu *C)
{
    if (!C->k->root)
        return;
    for (size_t i = 0; i < C->k->nlocals; i++) {
        Fill f = {.v = C->k->locals[i]};
        const Var *v = f.v;
        const char *why = NULL;
        if (!v->shared || v->dim || !v->decl_stmt || v->type.reference || v->init.end ||
            v->type.array_size <= 0 || v->type.array_dims < 1 ||
            v->type.array_dims > OKLC_CPU_MAX_DIMS || v->decl_stmt->ndecls != 1 || !v->loop ||
            v->loop->kind != LOOP_OUTER || !(f.b = oklc_cpu_block_of(C, v->loop)) || !in_body(v))
            continue;
        f.top = top_of(v->loop);
        if (!find_store(C, &f, &why))
            continue;
        const char *path = levels_of(&f);
        if (!same_store(C, &f))
            continue;
        why = why ? why : path ? path : kept(C, &f);
        Range head = {f.top->header.begin + 1, f.top->header.end - 1};
        if (why) {
            oklc_cpu_decision(C, head, false,
                              oklc_arena_printf(C->a, "@shared %s is set alike in every block: "
                                                "set in each block, %s", v->name, why));
            continue;
        }
        oklc_cpu_decision(C, head, false,
                          oklc_arena_printf(C->a, "@shared %s is set alike in every block: set "
                                            "once, before the blocks", v->name));
        apply(C, &f);
    }
}
