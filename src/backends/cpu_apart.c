/*
 * cpu_apart.c - can a use of an argument's element in a nest reach the
 * elements an OpenMP reduction holds back until the nest ends
 * (cpu_reduce.c)? Proven not with isl: the iterations of the use whose
 * subscript falls among those elements are an empty set.
 *
 * The use's subscript and the elements' bounds are read as affine
 * expressions (analysis/affine.c) of
 *  - the kernel's signed integer arguments passed by value that nothing
 *    in the kernel writes: isl parameters, any value;
 *  - the iterators of the attributed loops around the use, which only
 *    their headers move: variables between the loop's start and bound
 *    (a @tile without its check: from its start on);
 *  - the locals initialized with `=` that nothing writes: their
 *    initializers;
 * with what the conditions of the ifs around the use imply.
 * Anything else (a value read from memory, a plain loop's iterator, an
 * unsigned value, which wraps) and the use may reach them. isl counts
 * without overflow, as C's signed integers do where they are defined.
 */
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/set.h>

#include "../analysis/expr.h"
#include "cpu.h"

typedef struct Apart {
    Cpu        *C;
    const Loop *top;
    uint32_t    use;
    Buf         params, dims;
    VEC(const Loop *) loops;   /* whose iterators are named */
} Apart;

static Sym name_of(void *ctx, uint32_t off)
{
    Apart *A = ctx;
    Cpu *C = A->C;
    const Var *v = oklc_cpu_var_at(C, off);
    Sym none = {SYM_NONE, NULL, {0, 0}};
    if (!v || !v->is_int || !v->is_signed || v->type.pointer || v->type.array ||
        v->type.reference)
        return none;
    if (v->loop_iter) {
        for (size_t i = 0; i < C->k->nloops; i++) {
            const Loop *l = C->k->loops[i];
            if (l->iter_off != v->name_off || !oklc_in_range(l->stmt, A->use) ||
                !oklc_in_range(A->top->stmt, l->stmt.begin) || !l->analyzed ||
                oklc_cpu_written_in(C, v, l->body))
                continue;
            const char *name = oklc_arena_printf(C->a, "i%u", v->name_off);
            oklc_affine_name(&A->dims, name);
            vec_push(C->a, &A->loops, l);
            return (Sym){SYM_NAME, name, {0, 0}};
        }
        return none;
    }
    if (oklc_cpu_written_in(C, v, C->k->body))
        return none;
    if (v->kind == VAR_PARAM) {
        const char *name = oklc_arena_printf(C->a, "P_%s", v->name);
        oklc_affine_name(&A->params, name);
        return (Sym){SYM_NAME, name, {0, 0}};
    }
    if (v->kind == VAR_LOCAL && v->init_form == '=' && v->init.end > v->init.begin &&
        !v->static_ && !v->shared && !v->exclusive && !v->per_thread)
        return (Sym){SYM_EXPR, NULL, v->init};
    return none;
}

/* The ranges of the loops named so far (naming more as their bounds
 * read them), into cons; false when a bound is not affine. */
static bool loop_ranges(Apart *A, Affine *af, Buf *cons)
{
    for (size_t i = 0; i < A->loops.len; i++) {
        const Loop *l = A->loops.data[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = A->loops.data[j]->iter_off == l->iter_off;
        if (seen || l->cmp == CMP_NE)
            continue;
        const char *it = oklc_arena_printf(A->C->a, "i%u", l->iter_off);
        const char *start = oklc_affine_expr(af, l->start_at);
        if (!start)
            return false;
        oklc_buf_printf(cons, " and %s %s %s", it, l->down ? "<=" : ">=", start);
        if (l->tile_part && !l->tile_check)
            continue;                   /* its last tile may run past the bound */
        const char *bound = oklc_affine_expr(af, l->bound_at);
        if (!bound)
            return false;
        static const char *const cmp[] = {"<", "<=", ">", ">="};
        oklc_buf_printf(cons, " and %s %s %s", it, cmp[l->cmp], bound);
    }
    return true;
}

/* What the conditions of the ifs around the use in the nest imply (of
 * the else branch: the negation), into cons: a part that is not affine is
 * left out, which only makes the set larger. */
static void conditions(Apart *A, Affine *af, Buf *cons)
{
    for (const Stmt *s = A->top->node; s;) {
        const Stmt *in = NULL;
        size_t k = 0;
        for (; k < s->nkids && !in; k++)
            if (oklc_in_range(s->kids[k]->range, A->use))
                in = s->kids[k];
        if (in && s->kind == ST_IF && k <= 2)
            oklc_buf_printf(cons, " and %s", oklc_affine_cond(af, s->head, k == 2));
        s = in;
    }
}

/* Is the set of the text empty? (false when isl cannot read it) */
static bool empty(const char *set)
{
    isl_ctx *ctx = isl_ctx_alloc();
    if (!ctx)
        return false;
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    isl_set *s = isl_set_read_from_str(ctx, set);
    bool none = s && isl_set_is_empty(s) == isl_bool_true;
    isl_set_free(s);
    isl_ctx_free(ctx);
    return none;
}

/* The sum of span s's terms and `var`, or NULL when one is not affine. */
static const char *sum_of(Affine *af, const Span *s, const char *var)
{
    const char *sum = var;
    for (size_t i = 0; i < s->nterms && sum; i++) {
        const char *term = oklc_affine_expr(af, s->terms[i]);
        sum = term ? oklc_arena_printf(&af->c->arena, "%s + %s", sum, term) : NULL;
    }
    return sum;
}

bool oklc_cpu_apart(Cpu *C, const Loop *top, uint32_t use, const Span *a, const Span *b)
{
    Apart A = {.C = C, .top = top, .use = use};
    oklc_buf_init(&A.params, C->a);
    oklc_buf_init(&A.dims, C->a);
    Affine af;
    oklc_affine_init(&af, C->E->c, name_of, &A, "q");
    const char *x = sum_of(&af, a, "ra"), *y = sum_of(&af, b, "rb");
    Buf cons;
    oklc_buf_init(&cons, C->a);
    if (!x || !y)
        return false;
    conditions(&A, &af, &cons);
    if (!loop_ranges(&A, &af, &cons))
        return false;
    const char *cond = oklc_arena_printf(
        C->a, "%s = %s and %lld <= ra <= %lld and %lld <= rb <= %lld%s%s", x, y,
        (long long)a->lo, (long long)a->hi, (long long)b->lo, (long long)b->hi,
        cons.len ? cons.data : "", af.side.len ? af.side.data : "");
    /* ra, rb: the values of the bounded parts */
    cond = oklc_arena_printf(C->a, "exists (ra, rb%s : %s)", af.exists.len ? af.exists.data : "",
                             cond);
    /* one dimension at least: isl reads no "[]" */
    const char *set = oklc_arena_printf(C->a, "[%s] -> { [z%s] : %s }",
                                        A.params.len ? A.params.data + 2 : "",
                                        A.dims.len ? A.dims.data : "", cond);
    return empty(set);
}
