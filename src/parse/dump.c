/*
 * dump.c - the kernel model as readable text (oklc check --dump-model).
 *
 * One line per node, indented by nesting; positions are the user's
 * file:line:col. The format is for people and golden tests, not a stable
 * interface (the JSON metadata is that).
 */
#include <string.h>

#include "model.h"

static void pos(oklc_ctx *c, Buf *out, uint32_t off)
{
    Loc loc = oklc_norm_loc(c->norm, off);
    const FileView *v = &c->views.data[loc.file];
    oklc_buf_printf(out, "  @ %s:%lld:%u\n", v->name, oklc_presumed_line(c, loc), loc.col);
}

static void attr_text(Buf *out, const Attr *a)
{
    if (!a)
        return;
    oklc_buf_printf(out, " @%s", a->name);
    if (!a->nargs)
        return;
    oklc_buf_putc(out, '(');
    for (int i = 0; i < a->nargs; i++) {
        const AttrArg *g = &a->args[i];
        if (i)
            oklc_buf_puts(out, ", ");
        if (g->kind == ARG_ATTR)
            attr_text(out, g->attr);
        else if (g->kind == ARG_KEYVAL)
            oklc_buf_printf(out, "%s=%s", g->key, g->text);
        else
            oklc_buf_puts(out, g->text);
    }
    oklc_buf_putc(out, ')');
}

static void var(oklc_ctx *c, Buf *out, const char *indent, const char *what, const Var *v)
{
    oklc_buf_printf(out, "%s%s %s: %s", indent, what, v->name, v->type.spelling);
    attr_text(out, v->shared);
    attr_text(out, v->exclusive);
    attr_text(out, v->restrict_);
    attr_text(out, v->global_ptr);
    attr_text(out, v->dim);
    attr_text(out, v->dim_order);
    if (v->typedef_var)
        oklc_buf_printf(out, " (typedef %s)", v->typedef_var->name);
    pos(c, out, v->name_off);
}

static const char *axis_name(int axis)
{
    return axis == 0 ? "x" : axis == 1 ? "y" : axis == 2 ? "z" : "?";
}

static void loop(oklc_ctx *c, Buf *out, const Loop *l, int depth)
{
    for (int i = 0; i < depth; i++)
        oklc_buf_puts(out, "  ");
    const char *kind = l->kind == LOOP_OUTER ? "@outer" : l->kind == LOOP_INNER ? "@inner"
                                                                                : "loop";
    oklc_buf_printf(out, "  %s", kind);
    if (l->kind != LOOP_REGULAR)
        oklc_buf_printf(out, " %s%s", axis_name(l->axis), l->axis_given ? "" : " (auto)");
    if (l->tile_part)
        oklc_buf_printf(out, " [%s of @tile(%s%s)]", l->tile_part == 1 ? "tiles" : "in a tile",
                        l->tile_size, l->tile_check ? "" : ", check=false");
    if (l->analyzed)
        oklc_buf_printf(out, ": for (%s %s = %s; %s %s %s; %s %s %s), iterations: %s%s",
                        l->iter_type, l->iter, l->start, l->iter, oklc_cmp_spelling(l->cmp),
                        l->bound, l->iter, l->down ? "-=" : "+=", l->stride, l->trips,
                        l->trips_known ? oklc_arena_printf(&c->arena, " = %lld",
                                                           (long long)l->ntrips)
                                       : "");
    else
        oklc_buf_printf(out, ": (%s)", l->problem ? l->problem : "not analyzed");
    if (l->nobarrier)
        oklc_buf_puts(out, " @nobarrier");
    if (l->barrier_after != BARRIER_BY_RULE)
        oklc_buf_printf(out, ", a barrier after it: %s",
                        l->barrier_after == BARRIER_NEEDED ? "needed" : "not needed");
    attr_text(out, l->max_inner_dims);
    attr_text(out, l->simd_length);
    attr_text(out, l->unroll);
    pos(c, out, l->stmt.begin);
    for (size_t i = 0; i < l->nkids; i++)
        loop(c, out, l->kids[i], depth + 1);
}

/* The for loops without OKL attributes whose count is known. */
static void plain_loops(oklc_ctx *c, Buf *out, const Stmt *st)
{
    if (st->kind == ST_FOR && !st->loop && st->trips >= 0) {
        oklc_buf_printf(out, "  plain loop, iterations: %d", (int)st->trips);
        pos(c, out, st->range.begin);
    }
    for (size_t i = 0; i < st->nkids; i++)
        plain_loops(c, out, st->kids[i]);
}

static void kernel(oklc_ctx *c, Buf *out, const Kernel *k)
{
    oklc_buf_printf(out, "kernel %s", k->name);
    if (k->template_params)
        oklc_buf_printf(out, " template <%s>", k->template_params);
    pos(c, out, k->name_off);
    for (size_t i = 0; i < k->nparams; i++)
        var(c, out, "  ", "param", k->params[i]);
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        /* each nest from its top; regular tile parts print with their tile */
        if (!l->parent && (l->kind != LOOP_REGULAR || l->tile_part))
            loop(c, out, l, 0);
    }
    if (k->root)
        plain_loops(c, out, k->root);
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if (v->shared || v->exclusive || v->per_thread ||
            (v->typedef_var && (v->typedef_var->shared || v->typedef_var->exclusive)))
            var(c, out, "  ", v->shared || (v->typedef_var && v->typedef_var->shared) ? "shared"
                              : v->per_thread ? "per thread" : "exclusive",
                v);
    }
    for (size_t i = 0; i < k->nbarriers; i++) {
        const Barrier *b = k->barriers[i];
        oklc_buf_printf(out, "  barrier %s%s", b->kind == BARRIER_WARP ? "warp" : "local",
                        b->dropped ? ", left out: it separates nothing" : "");
        pos(c, out, b->stmt.begin);
    }
    for (size_t i = 0; i < k->natomics; i++) {
        const Atomic *a = k->atomics[i];
        oklc_buf_printf(out, "  atomic %s", a->block ? "block" : "expression");
        pos(c, out, a->stmt.begin);
    }
    for (size_t i = 0; i < k->ndims; i++) {
        const DimAccess *d = k->dims[i];
        oklc_buf_printf(out, "  dim access %s with %d indices", d->var ? d->var->name : "?",
                        d->nindex);
        pos(c, out, d->call.begin);
    }
}

void oklc_model_dump(oklc_ctx *c, const Model *m, Buf *out)
{
    for (size_t i = 0; i < m->ntypedefs; i++)
        var(c, out, "", "typedef", m->typedefs[i]);
    for (size_t i = 0; i < m->nfields; i++)
        var(c, out, "", "field", m->fields[i]);
    for (size_t i = 0; i < m->nglobals; i++)
        var(c, out, "", "global", m->globals[i]);
    for (size_t i = 0; i < m->nfunctions; i++) {
        oklc_buf_printf(out, "function %s", m->functions[i]->name);
        pos(c, out, m->functions[i]->decl.begin);
    }
    for (size_t i = 0; i < m->nkernels; i++)
        kernel(c, out, m->kernels[i]);
}
