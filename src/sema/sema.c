/*
 * sema.c - the rules of OKL (seeds/000 Appendix B, seeds/003), one
 * diagnostic each, on the model.
 *
 * Takes the model, reports every broken rule at the user's position and
 * completes the model (loop axes, in loops.c). Rules about the tree of
 * loops are in loops.c; the rest is here, in the order of the reference:
 * @kernel, attributes in the wrong place, variables (@shared, @exclusive,
 * const outside @inner), @dim/@dimOrder, @restrict, @barrier.
 */
#include <string.h>

#include "sema.h"

/* ---- attributes where they cannot be ------------------------------------------------ */

static const char *applies_to(AttrId id)
{
    switch (id) {
    case ATTR_KERNEL: return "functions";
    case ATTR_OUTER: case ATTR_INNER: case ATTR_TILE: case ATTR_NOBARRIER:
    case ATTR_MAX_INNER_DIMS: case ATTR_SIMD_LENGTH: case ATTR_UNROLL: case ATTR_CL_IVDEP:
        return "for loops";
    case ATTR_CL_REQD_WGS: case ATTR_CL_WGS_HINT: case ATTR_CL_VEC_HINT:
        return "the definitions of @kernel functions";
    case ATTR_SHARED: case ATTR_EXCLUSIVE: return "variables declared in a kernel, and typedefs";
    case ATTR_BARRIER: return "empty statements ('@barrier;')";
    case ATTR_ATOMIC: return "expression statements and blocks";
    case ATTR_RESTRICT: case ATTR_GLOBAL_PTR: return "pointers";
    case ATTR_DIM: case ATTR_DIMORDER: return "pointer and array declarations, and typedefs";
    default: return "nothing";
    }
}

static void misplaced(oklc_ctx *c, const Attr *a, const char *what)
{
    if (!what)
        oklc_model_error(c, a->off, "'%s%s' cannot be applied here; it applies to %s only",
                         oklc_attr_at(a->name), a->name, applies_to(a->id));
    else if (!strcmp(what, "a loop that has it already") ||
             !strcmp(what, "a declaration that has it already") ||
             !strcmp(what, "a kernel that has it already"))
        oklc_model_error(c, a->off, "duplicate '%s%s'", oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a loop that has a loop attribute already"))
        oklc_model_error(c, a->off, "'%s%s' conflicts with the other loop attribute of this "
                                    "loop; a loop is @outer, @inner or @tile",
                         oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a loop outside a kernel"))
        oklc_model_error(c, a->off, "'%s%s' loops must be inside a @kernel function",
                         oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a statement outside a kernel") ||
             !strcmp(what, "a variable outside a kernel"))
        oklc_model_error(c, a->off, "'%s%s' must be inside a @kernel function",
                         oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a statement that has it already"))
        oklc_model_error(c, a->off, "duplicate '%s%s'", oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a loop inside a lambda"))
        oklc_model_error(c, a->off, "'%s%s' loops cannot be inside a lambda",
                         oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a statement inside a lambda"))
        oklc_model_error(c, a->off, "'%s%s' cannot be inside a lambda: the threads wait in the "
                                    "kernel, not in a call (a function whose last statement is "
                                    "the @barrier has it after each call)",
                         oklc_attr_at(a->name), a->name);
    else if (!strcmp(what, "a member function"))
        oklc_model_error(c, a->off, "'@kernel' applies to free functions, not to member "
                                    "functions");
    else
        oklc_model_error(c, a->off, "'%s%s' cannot be applied to %s; it applies to %s only",
                         oklc_attr_at(a->name), a->name, what, applies_to(a->id));
}

/* ---- variables ------------------------------------------------------------------------- */

/* The attribute a variable has itself or through its OKL typedef. */
static const Attr *own_or_typedef(const Var *v, size_t field)
{
    const Attr *a = *(Attr *const *)((const char *)v + field);
    if (!a && v->typedef_var)
        a = *(Attr *const *)((const char *)v->typedef_var + field);
    return a;
}

#define ATTR_OF(v, f) own_or_typedef((v), offsetof(Var, f))

static bool is_const(const Var *v)
{
    /* as legacy OCCA: const anywhere in the declared type counts */
    return v->type.is_const || v->type.element_const || v->constexpr_;
}

static void storage_rules(oklc_ctx *c, const Var *v)
{
    const Attr *sh = ATTR_OF(v, shared), *ex = ATTR_OF(v, exclusive);
    const Attr *a = sh ? sh : ex;
    if (!a)
        return;
    if (sh && ex) {
        oklc_model_error(c, v->name_off, "'%s' cannot be both @shared and @exclusive", v->name);
        return;
    }
    if (!v->loop) {
        oklc_model_error(c, v->name_off, "'@%s' variable '%s' must be declared inside an @outer "
                                         "loop, before its @inner loops",
                         a->name, v->name);
        return;
    }
    if (v->loop->kind != LOOP_OUTER) {
        oklc_model_error(c, v->name_off, "'@%s' variable '%s' is declared inside an @inner loop; "
                                         "declare it between the @outer and the @inner loops",
                         a->name, v->name);
        return;
    }
    if (sh && (!v->type.array || (v->type.array_size < 0 && !v->type.dependent)))
        oklc_model_error(c, v->name_off, "'@shared' variable '%s' must be an array of constant "
                                         "size",
                         v->name);
    if (ex && v->type.array && v->type.array_size < 0 && !v->type.dependent)
        oklc_model_error(c, v->name_off, "'@exclusive' array '%s' must have a constant size",
                         v->name);
}

/* A variable of the block (between @outer and @inner) is one per thread
 * on a GPU, one per block on a CPU: the threads must agree on its value.
 * The rule (seeds/003) wants it const, @shared or @exclusive; legacy OCCA
 * takes any variable, and real codes set one by a call (f(&ex)) before
 * the @inner loops: accepted, with a warning, while the threads agree. */
static void local_rules(oklc_ctx *c, const Model *m, const Kernel *k, const Var *v)
{
    if (v->loop_iter || ATTR_OF(v, shared) || ATTR_OF(v, exclusive) || is_const(v))
        return;
    if (!v->loop && v->top_level)
        oklc_model_error(c, v->name_off, "'%s' is declared outside the @outer loops, so it must "
                                         "be const: every block of the kernel computes it once",
                         v->name);
    else if (v->loop && v->loop->kind == LOOP_OUTER &&
             oklc_sema_thread_write(c, m, k, v) != UINT32_MAX)
        ;   /* written per thread: analysis/private.c decides */
    else if (v->loop && v->loop->kind == LOOP_OUTER)
        oklc_model_diag(c, DIAG_WARNING, v->name_off,
                        "'%s' is declared between the @outer and the @inner loops without const, "
                        "@shared or @exclusive; accepted as legacy OCCA accepts it, since every "
                        "thread holds the same value: declare it const, or @exclusive",
                        v->name);
}

static bool pointer_like(const Var *v)
{
    return v->type.pointer || v->type.array || v->type.dependent;
}

/* @dim / @dimOrder on a declaration; returns the number of dimensions. */
static int dim_rules(oklc_ctx *c, const Var *v)
{
    const Attr *dim = ATTR_OF(v, dim), *order = ATTR_OF(v, dim_order);
    if (v->dim && !pointer_like(v)) {
        oklc_model_error(c, v->dim->off, "'@dim' applies to pointers and arrays; '%s' is '%s'",
                         v->name, v->type.spelling);
        return 0;
    }
    if (v->dim_order && !dim) {
        oklc_model_error(c, v->dim_order->off, "'@dimOrder' needs '@dim' on '%s'", v->name);
        return 0;
    }
    if (v->dim_order && order->nargs != dim->nargs) {
        oklc_model_error(c, v->dim_order->off, "'@dimOrder' of '%s' has %d indices, but '@dim' "
                                               "has %d dimensions",
                         v->name, order->nargs, dim->nargs);
        return 0;
    }
    if (v->dim_order) {
        unsigned seen = 0;
        for (int i = 0; i < order->nargs; i++) {
            const AttrArg *g = &order->args[i];
            uint64_t x;
            bool u;
            const char *err;
            if (!oklc_int_literal(g->text, strlen(g->text), &x, &u, &err) ||
                x >= (uint64_t)order->nargs || (seen & (1u << x))) {
                oklc_model_error(c, g->off, "'@dimOrder' must list each dimension 0 to %d once",
                                 order->nargs - 1);
                return 0;
            }
            seen |= 1u << x;
        }
    }
    return dim ? dim->nargs : 0;
}

/* @restrict, @globalPtr */
static void pointer_rule(oklc_ctx *c, const Var *v, const Attr *a)
{
    if (a && !v->type.pointer && !v->type.dependent)
        oklc_model_error(c, a->off, "'@%s' applies to pointers; '%s' is '%s'", a->name, v->name,
                         v->type.spelling);
}

static void declaration_rules(oklc_ctx *c, const Var *v)
{
    dim_rules(c, v);
    pointer_rule(c, v, v->restrict_);
    pointer_rule(c, v, v->global_ptr);
    /* a function's parameter may point into @shared memory (as in OCCA) */
    bool shared_param = v->kind == VAR_PARAM && !v->kernel && v->shared && !v->exclusive;
    if (shared_param && !v->type.pointer && !v->type.array && !v->type.dependent)
        oklc_model_error(c, v->shared->off, "'@shared' on a function's parameter applies to "
                                            "pointers and arrays; '%s' is '%s'",
                         v->name, v->type.spelling);
    else if (v->kind != VAR_LOCAL && v->kind != VAR_TYPEDEF && !shared_param) {
        const Attr *a = v->shared ? v->shared : v->exclusive;
        if (a)
            oklc_model_error(c, a->off, "'@%s' applies to variables declared in a kernel; '%s' "
                                        "is %s",
                             a->name, v->name, v->kind == VAR_PARAM ? "a parameter"
                                               : v->kind == VAR_FIELD ? "a struct field"
                                                                      : "a global variable");
    }
}

/* ---- statements ------------------------------------------------------------------------- */

static void dim_access(oklc_ctx *c, const DimAccess *d)
{
    if (!d->var) {
        oklc_model_error(c, d->call.begin, "okl::at needs a variable declared with @dim as its "
                                           "first argument");
        return;
    }
    const Attr *dim = ATTR_OF(d->var, dim);
    if (!dim) {
        oklc_model_error(c, d->call.begin, "'%s' is not declared with @dim, so it cannot be "
                                           "indexed with '%s(...)' or 'okl::at(%s, ...)'",
                         d->var->name, d->var->name, d->var->name);
        return;
    }
    if (d->nindex != dim->nargs)
        oklc_model_error(c, d->call.begin, "'%s' has %d dimension%s but is indexed with %d",
                         d->var->name, dim->nargs, dim->nargs == 1 ? "" : "s", d->nindex);
}


static void barrier_rules(oklc_ctx *c, const Barrier *b)
{
    const Attr *a = b->attr;
    if (a->nargs && strcmp(a->args[0].text, "\"local\"") && strcmp(a->args[0].text, "\"warp\"") &&
        strcmp(a->args[0].text, "\"global\"")) {
        oklc_model_error(c, a->args[0].off, "the argument of '@barrier' must be \"local\", "
                                            "\"warp\" or \"global\"");
        return;
    }
    if (b->kind == BARRIER_GLOBAL) {
        oklc_model_error(c, a->off, "no target has a grid-wide barrier inside a kernel; end the "
                                    "@outer loop here and start another one");
        return;
    }
    if (!b->loop) {
        oklc_model_error(c, a->off, "'@barrier' must be inside an @outer loop");
        return;
    }
    /* under a condition that differs between threads: analysis/races.c
     * leaves it out where it separates nothing, else it is an error */
}

/* A break cannot leave an @outer or @inner loop: its iterations are blocks
 * or threads that run in parallel, not one after the other. */
static void jump_rules(oklc_ctx *c, const Stmt *st)
{
    for (size_t i = 0; i < st->nkids; i++)
        jump_rules(c, st->kids[i]);
    if (st->kind != ST_BREAK)
        return;
    const Stmt *p = st->parent;
    while (p && p->kind != ST_FOR && p->kind != ST_WHILE && p->kind != ST_DO &&
           p->kind != ST_SWITCH)
        p = p->parent;
    if (p && p->kind == ST_FOR && p->loop)
        oklc_model_error(c, st->range.begin, "'break' cannot leave %s loop: its iterations "
                         "run in parallel; use 'continue' to end this one",
                         p->loop->kind == LOOP_OUTER ? "an @outer" : "an @inner");
}

/* ---- kernels ----------------------------------------------------------------------------- */

static void kernel_rules(oklc_ctx *c, const Model *m, Kernel *k, const ParseOptions *o)
{
    if (k->in_namespace)
        oklc_model_error(c, k->name_off, "a @kernel must be declared at file scope, not in a "
                         "namespace ('%s'): the backends' entry points are plain C names",
                         k->in_namespace);
    if (strcmp(k->return_type, "void"))
        oklc_model_error(c, k->name_off, "a @kernel function must return void, not '%s'",
                         k->return_type);
    bool outer = false, inner = false;
    for (size_t i = 0; i < k->nloops; i++) {
        outer |= k->loops[i]->kind == LOOP_OUTER;
        inner |= k->loops[i]->kind == LOOP_INNER;
    }
    if (!outer)
        oklc_model_error(c, k->name_off, "kernel '%s' has no @outer loop", k->name);
    else if (!inner)
        oklc_model_error(c, k->name_off, "kernel '%s' has no @inner loop", k->name);
    for (size_t i = 0; i < k->nparams; i++)
        declaration_rules(c, k->params[i]);
    for (size_t i = 0; i < k->nlocals; i++) {
        declaration_rules(c, k->locals[i]);
        storage_rules(c, k->locals[i]);
        local_rules(c, m, k, k->locals[i]);
    }
    oklc_sema_loops(c, k, o, inner);
    for (size_t i = 0; i < k->ndims; i++)
        dim_access(c, k->dims[i]);
    for (size_t i = 0; i < k->nbarriers; i++)
        barrier_rules(c, k->barriers[i]);
    if (k->root)
        jump_rules(c, k->root);
    oklc_sema_block_effects(c, k);
}

bool oklc_sema_check(oklc_ctx *c, Model *m, const ParseOptions *o)
{
    int before = c->nerrors;
    for (size_t i = 0; i < m->nmisplaced; i++)
        misplaced(c, m->misplaced[i], m->misplaced_what[i]);
    if (!m->nkernels)
        oklc_diag_error(c, oklc_src_loc(c, c->pp ? c->pp->main_view : 0, 0),
                        "no @kernel function in this file");
    for (size_t i = 0; i < m->ntypedefs; i++)
        declaration_rules(c, m->typedefs[i]);
    for (size_t i = 0; i < m->nfields; i++)
        declaration_rules(c, m->fields[i]);
    for (size_t i = 0; i < m->nglobals; i++)
        declaration_rules(c, m->globals[i]);
    for (size_t i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        for (size_t p = 0; p < f->nparams; p++)
            declaration_rules(c, f->params[p]);
        for (size_t p = 0; p < f->nlocals; p++)
            declaration_rules(c, f->locals[p]);
        if (f->inner_barrier)
            oklc_model_error(c, f->inner_barrier->off, "a @barrier in a function must be its "
                             "last statement: it then stands after each call of the function "
                             "in a kernel");
    }
    for (size_t i = 0; i < m->nkernels; i++)
        kernel_rules(c, m, m->kernels[i], o);
    return c->nerrors == before;
}
