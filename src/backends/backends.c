/*
 * backends.c - what every backend does to a kernel: OKL's attributes
 * leave, @restrict becomes the target's keyword, @dim accesses become flat
 * indexing, and each kernel (or template instance) gets an entry point.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* ---- text helpers ------------------------------------------------------------ */



const char *oklc_emit_indent(Emit *E, uint32_t off)
{
    const char *t = E->nz->text;
    uint32_t b = off;
    while (b > 0 && t[b - 1] != '\n')
        b--;
    uint32_t e = b;
    while (e < off && (t[e] == ' ' || t[e] == '\t'))
        e++;
    return oklc_arena_strndup(&E->c->arena, t + b, e - b);
}

/* Is s one parenthesized expression: "(a + b)", not "(a) + (b)"? */
static bool parenthesized(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return false;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i + 1 < n)
            return false;
    }
    return true;
}

const char *oklc_emit_unroll_count(const char *args)
{
    while (*args == ' ' || *args == '\t')
        args++;
    if (strncmp(args, "unroll", 6) || oklc_ident_char(args[6]))
        return NULL;
    args += 6;
    while (*args == ' ' || *args == '\t')
        args++;
    return args;
}

const char *oklc_emit_operand(Emit *E, const char *s)
{
    if (parenthesized(s))
        return s;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
            return oklc_arena_printf(&E->c->arena, "(%s)", s);
    return s;
}

const SpecRange *oklc_emit_spec_of(const Emit *E, const Attr *a)
{
    for (size_t i = 0; i < E->nz->nspecs; i++) {
        const SpecRange *s = &E->nz->specs[i];
        if (a->off >= s->off && a->off < s->end)
            return s;
    }
    return NULL;
}

void oklc_emit_delete_stmt(Emit *E, uint32_t begin, uint32_t end)
{
    oklc_edit_delete(&E->ed, begin, end);
}

uint32_t oklc_emit_stmt_start(const Emit *E, uint32_t begin)
{
    const char *t = E->nz->text;
    for (;;) {
        uint32_t p = begin;
        while (p > 0 && isspace((unsigned char)t[p - 1]))
            p--;
        size_t lo = 0, hi = E->nz->nspecs;    /* the last spec ending at or before p */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (E->nz->specs[mid].end <= p)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!lo || E->nz->specs[lo - 1].end != p)
            return begin;
        begin = E->nz->specs[lo - 1].off;
    }
}

/* A pragma line before a statement (before its attributes, if it
 * starts its line). */
void oklc_emit_pragma_before(Emit *E, Attr *const *attrs, size_t nattrs, uint32_t stmt,
                             const char *pragma)
{
    uint32_t start = stmt;
    for (size_t i = 0; i < nattrs; i++) {
        const SpecRange *sp = oklc_emit_spec_of(E, attrs[i]);
        if (sp && sp->off < start)
            start = sp->off;
    }
    const char *t = E->nz->text;
    uint32_t ls = start;
    while (ls > 0 && (t[ls - 1] == ' ' || t[ls - 1] == '\t'))
        ls--;
    const char *ind = oklc_emit_indent(E, start);
    if (ls == 0 || t[ls - 1] == '\n')
        oklc_edit_before(&E->ed, start, oklc_arena_printf(&E->c->arena, "%s\n%s", pragma, ind));
    else
        oklc_edit_before(&E->ed, stmt, oklc_arena_printf(&E->c->arena, "\n%s%s\n%s", ind, pragma, ind));
}

/* The iterator's declared type: "int" of "int i = 0", with the edits in
 * it; the type Clang deduced for "auto i = 0" (the iterator is then an
 * index of another type). */
const char *oklc_emit_iter_type(Emit *E, const Loop *l)
{
    const char *t = E->nz->text;
    uint32_t b = l->init.begin, e = l->iter_off;
    while (b < e && isspace((unsigned char)t[b]))
        b++;
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    for (uint32_t at = b; at + 4 <= e; at++) {
        if (strncmp(t + at, "auto", 4) || oklc_ident_char(t[at + 4]) ||
            (at > b && oklc_ident_char(t[at - 1])))
            continue;
        for (size_t i = 0; l->kernel && i < l->kernel->nlocals; i++)
            if (l->kernel->locals[i]->name_off == l->iter_off)
                return l->kernel->locals[i]->type.spelling;
    }
    return oklc_edits_text(&E->ed, b, e);
}

/* ---- tiles -------------------------------------------------------------------------- */

/* The first element of the current tile of loop l. */
static const char *tiled(Emit *E, const Loop *l)
{
    return oklc_arena_printf(&E->c->arena, "_occa_tiled_%s", l->iter);
}

/* What ends the loop in a tile: the tile's end, or the bound when it
 * comes first (computed once, so the loop's trip count is known). */
const char *oklc_emit_tile_end(Emit *E, const Loop *l)
{
    if (!l->tile_check)
        return "";
    const char *tv = tiled(E, l);
    const Loop *t = l->tile_other;
    const char *lim = oklc_arena_printf(&E->c->arena, "%s %s %s", tv, l->down ? "-" : "+", t->stride);
    const char *bound = oklc_emit_operand(E, l->bound);
    if (l->cmp == CMP_LE)
        bound = oklc_arena_printf(&E->c->arena, "%s + 1", bound);
    else if (l->cmp == CMP_GE)
        bound = oklc_arena_printf(&E->c->arena, "%s - 1", bound);
    return oklc_arena_printf(&E->c->arena, "const %s _occa_end_%s = %s %s %s ? %s : %s;",
                             oklc_emit_iter_type(E, l), l->iter, lim, l->down ? ">" : "<", bound,
                             lim, bound);
}

/* The loop in a tile: from the tile's first element to its end. */
const char *oklc_emit_tile_loop(Emit *E, const Loop *l)
{
    const char *tv = tiled(E, l);
    const char *end = l->tile_check
                          ? oklc_arena_printf(&E->c->arena, "_occa_end_%s", l->iter)
                          : oklc_arena_printf(&E->c->arena, "%s %s %s", tv, l->down ? "-" : "+",
                                              l->tile_other->stride);
    const char *step = !strcmp(l->stride, "1")
                           ? oklc_arena_printf(&E->c->arena, "%s%s", l->down ? "--" : "++", l->iter)
                           : oklc_arena_printf(&E->c->arena, "%s %s %s", l->iter, l->down ? "-=" : "+=",
                                               oklc_emit_operand(E, l->stride));
    return oklc_arena_printf(&E->c->arena, "for (%s %s = %s; %s %s %s; %s)", oklc_emit_iter_type(E, l),
                             l->iter, tv, l->iter, l->down ? ">" : "<", end, step);
}

/* ---- atomics --------------------------------------------------------------------------- */

const char *oklc_atomic_update(Arena *a, const Atomic *at, const char *old, const char *type,
                               const char *v)
{
    static const char *const ops[] = {
        [AT_ADD] = "+", [AT_SUB] = "-", [AT_MUL] = "*", [AT_DIV] = "/", [AT_MOD] = "%",
        [AT_AND] = "&", [AT_OR] = "|", [AT_XOR] = "^", [AT_SHL] = "<<", [AT_SHR] = ">>",
        [AT_INC] = "+", [AT_DEC] = "-",
    };
    const char *val = oklc_arena_printf(a, "(%s)(%s)", type, v);
    switch (at->op) {
    case AT_ASSIGN:
        return val;
    case AT_MIN: case AT_MAX:
        return oklc_arena_printf(a, "(%s %s %s ? %s : %s)", old, at->op == AT_MIN ? "<" : ">",
                                 val, old, val);
    case AT_MOD: case AT_AND: case AT_OR: case AT_XOR: case AT_SHL: case AT_SHR:
        if (at->is_float)
            return NULL;
        /* fall through */
    case AT_ADD: case AT_SUB: case AT_MUL: case AT_DIV: case AT_INC: case AT_DEC:
        return oklc_arena_printf(a, "%s %s %s", old, ops[at->op], val);
    default:
        return NULL;
    }
}

/* A compare-and-swap loop's right-hand side, read once before the loop
 * into _occa_rhs (what oklc_atomic_update is then given): idx[j++] or
 * cnt[t]++ must not run again on each retry. */
const char *oklc_atomic_rhs(Arena *a, const char *type, const char *v)
{
    return oklc_arena_printf(a, "const %s _occa_rhs = (%s)(%s); ", type, type, v);
}

const char *oklc_atomic_native_type(const Atomic *at)
{
    if (at->is_float)
        return at->size == 4 ? "float" : at->size == 8 ? "double" : NULL;
    if (at->size == 4)
        return at->is_signed ? "int" : "unsigned int";
    if (at->size == 8)
        return at->is_signed ? "long long" : "unsigned long long";
    return NULL;
}

/* ---- names the target reserves ----------------------------------------------------- */

static void rename_vars(Emit *E, Var *const *vars, size_t n, const char *const *keywords,
                        size_t nkeywords)
{
    for (size_t i = 0; i < n; i++) {
        const Var *v = vars[i];
        bool keyword = false;
        for (size_t j = 0; j < nkeywords && !keyword; j++)
            keyword = !strcmp(v->name, keywords[j]);
        if (!keyword)
            continue;
        const char *to = oklc_arena_printf(&E->c->arena, "_occa_%s", v->name);
        size_t len = strlen(v->name);
        oklc_edit_replace(&E->ed, v->name_off, v->name_off + (uint32_t)len, to);
        for (size_t r = 0; r < v->nrefs; r++)
            if (v->refs[r].end - v->refs[r].begin == len)
                oklc_edit_replace(&E->ed, v->refs[r].begin, v->refs[r].end, to);
    }
}

void oklc_emit_rename_keywords(Emit *E, const char *const *keywords, size_t n)
{
    const Model *m = E->m;
    rename_vars(E, m->globals, m->nglobals, keywords, n);
    for (size_t i = 0; i < m->nkernels; i++) {
        rename_vars(E, m->kernels[i]->params, m->kernels[i]->nparams, keywords, n);
        rename_vars(E, m->kernels[i]->locals, m->kernels[i]->nlocals, keywords, n);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        rename_vars(E, m->functions[i]->params, m->functions[i]->nparams, keywords, n);
        rename_vars(E, m->functions[i]->locals, m->functions[i]->nlocals, keywords, n);
    }
}

void oklc_emit_half(Emit *E)
{
    if (oklc_uses_half(E->m, E->kernels.data, E->kernels.len))
        oklc_buf_puts(&E->head, "#define OKLC_PRELUDE_HALF 1\n");
}

/* ---- attributes ------------------------------------------------------------------ */

/* Does the declarator already say restrict (`@restrict float *__restrict__ x`:
 * a second one is an error in C and C++)? */
static bool restrict_written(Emit *E, const Var *v)
{
    static const char *const kws[] = {"__restrict__", "__restrict", "restrict"};
    const char *t = E->nz->text;
    uint32_t e = v->name_off;
    while (e > 0 && isspace((unsigned char)t[e - 1]))
        e--;
    uint32_t b = e;
    while (b > 0 && oklc_ident_char(t[b - 1]))
        b--;
    for (size_t i = 0; i < OKLC_COUNTOF(kws); i++)
        if (e - b == strlen(kws[i]) && !strncmp(t + b, kws[i], e - b))
            return true;
    return false;
}

static void restrict_var(Emit *E, const Var *v)
{
    if (v->restrict_ && !restrict_written(E, v))
        oklc_edit_before(&E->ed, v->name_off,
                         oklc_arena_printf(&E->c->arena, "%s ", E->be->restrict_kw));
}

/* #include <okl_intrinsic.h> (OKL's own header): what it declares is in
 * every backend's preamble. */
static void drop_okl_include(Edits *ed, Range line, const char *args, void *data)
{
    (void)data;
    if (strstr(args, "<okl_intrinsic.h>"))
        oklc_edit_replace(ed, line.begin, line.end,
                          "/* <okl_intrinsic.h>: in the preamble above */");
}

void oklc_emit_attributes(Emit *E)
{
    Model *m = E->m;
    oklc_edits_drop_specs(&E->ed, E->nz);
    oklc_edits_directives(&E->ed, "include", drop_okl_include, NULL);
    for (size_t i = 0; i < m->nkernels; i++) {
        const Kernel *k = m->kernels[i];
        for (size_t p = 0; p < k->nparams; p++)
            restrict_var(E, k->params[p]);
        for (size_t p = 0; p < k->nlocals; p++)
            restrict_var(E, k->locals[p]);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        const Function *f = m->functions[i];
        for (size_t p = 0; p < f->nparams; p++)
            restrict_var(E, f->params[p]);
        for (size_t p = 0; p < f->nlocals; p++)
            restrict_var(E, f->locals[p]);
    }
    for (size_t i = 0; i < m->nglobals; i++)
        restrict_var(E, m->globals[i]);
    for (size_t i = 0; i < m->ntypedefs; i++)
        restrict_var(E, m->typedefs[i]);
    for (size_t i = 0; i < m->nfields; i++)
        restrict_var(E, m->fields[i]);
}

/* ---- @dim ---------------------------------------------------------------------------- */

static int by_size(const void *pa, const void *pb)
{
    const DimAccess *a = *(DimAccess *const *)pa, *b = *(DimAccess *const *)pb;
    uint32_t la = a->call.end - a->call.begin, lb = b->call.end - b->call.begin;
    return la < lb ? -1 : la > lb;
}

/* okl::at(m, i, j) with @dim(X, Y) -> m[(i) + (X) * (j)]: the first index
 * is the fastest; @dimOrder(1, 0) makes the second one the fastest. */
static void dim_access(Emit *E, const DimAccess *d)
{
    const Var *v = d->var;
    const Var *td = v->typedef_var;
    const Attr *dim = v->dim ? v->dim : td ? td->dim : NULL;
    const Attr *order = v->dim_order ? v->dim_order : td ? td->dim_order : NULL;
    if (!dim || d->nindex != dim->nargs || d->nindex == 0)
        return;           /* the checks reported it */
    const char *t = E->nz->text;
    uint32_t open = d->call.begin;
    while (open < d->index[0].begin && t[open] != '(')
        open++;
    uint32_t comma = d->index[0].begin;
    while (comma > open && t[comma - 1] != ',')
        comma--;
    const char *array = oklc_edits_text(&E->ed, open + 1, comma > open + 1 ? comma - 1 : open + 1);
    int n = d->nindex;
    int *o = oklc_arena_alloc(&E->c->arena, (size_t)n * sizeof *o);
    for (int i = 0; i < n; i++)
        o[i] = order && order->nargs == n ? atoi(order->args[i].text) : i;
    const char *flat = oklc_edits_text(&E->ed, d->index[o[n - 1]].begin, d->index[o[n - 1]].end);
    for (int j = n - 2; j >= 0; j--) {
        const char *idx = oklc_edits_text(&E->ed, d->index[o[j]].begin, d->index[o[j]].end);
        flat = oklc_arena_printf(&E->c->arena, "(%s) + (%s) * (%s)", idx, dim->args[o[j]].text,
                                 flat);
    }
    oklc_edit_replace(&E->ed, d->call.begin, d->call.end,
                      oklc_arena_printf(&E->c->arena, "%s[%s]", array, flat));
}

void oklc_emit_dims(Emit *E, const Kernel *k)
{
    if (!k->ndims)
        return;
    DimAccess **v = oklc_arena_alloc(&E->c->arena, k->ndims * sizeof *v);
    memcpy(v, k->dims, k->ndims * sizeof *v);
    qsort(v, k->ndims, sizeof *v, by_size);    /* the inner calls first */
    for (size_t i = 0; i < k->ndims; i++)
        dim_access(E, v[i]);
}

/* ---- jumps out of iterations ----------------------------------------------------------- */

typedef struct Jumps {
    Emit *E;
    const Kernel *k;
    bool loops_stay;
    VEC(const Loop *) labelled;     /* loops with a label at the end of their body */
    VEC(const char *) labels;
} Jumps;

static const Loop *innermost_at(const Kernel *k, uint32_t off)
{
    const Loop *best = NULL;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (oklc_in_range(l->stmt, off) && l->kind != LOOP_REGULAR &&
            (!best || l->level > best->level))
            best = l;
    }
    return best;
}

/* The label at the end of the loop's body (one per loop), in a block of
 * its own after the body's statements: a jump there crosses no
 * initialization in the label's scope. */
static const char *label_at_end(Jumps *J, const Loop *l)
{
    for (size_t i = 0; i < J->labelled.len; i++)
        if (J->labelled.data[i] == l)
            return J->labels.data[i];
    Arena *a = &J->E->c->arena;
    const char *name = oklc_arena_printf(a, "_occa_next_%s", l->iter);
    for (int n = 2;; n++) {
        bool taken = false;
        for (size_t i = 0; i < J->labels.len; i++)
            taken |= !strcmp(J->labels.data[i], name);
        if (!taken)
            break;
        name = oklc_arena_printf(a, "_occa_next_%s_%d", l->iter, n);
    }
    vec_push(a, &J->labelled, l);
    vec_push(a, &J->labels, name);
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    if (J->E->be->gpu && J->E->be->gpu->no_goto) {   /* `continue` leaves the do */
        oklc_edit_before(&J->E->ed, body->range.begin, "do ");
        oklc_edit_after(&J->E->ed, body->range.end, " while (0);");
        return name;
    }
    if (body->kind == ST_COMPOUND) {
        oklc_edit_after(&J->E->ed, body->range.begin + 1, "{");
        oklc_edit_before(&J->E->ed, body->range.end - 1,
                         oklc_arena_printf(a, "} %s:;\n%s", name,
                                           oklc_emit_indent(J->E, body->range.end - 1)));
    } else {
        oklc_edit_before(&J->E->ed, body->range.begin, "{ ");
        oklc_edit_after(&J->E->ed, body->range.end, oklc_arena_printf(a, " %s:; }", name));
    }
    return name;
}

static void jump(Jumps *J, const Stmt *st)
{
    for (size_t i = 0; i < st->nkids; i++)
        jump(J, st->kids[i]);
    if (st->kind != ST_RETURN && (st->kind != ST_CONTINUE || J->loops_stay))
        return;
    const Loop *l = innermost_at(J->k, st->range.begin);
    if (!l || !l->node || !l->node->nkids)
        return;
    const Stmt *p = st->parent;        /* the loop (or switch) the jump is in */
    while (p && p->kind != ST_FOR && p->kind != ST_WHILE && p->kind != ST_DO &&
           (p->kind != ST_SWITCH || st->kind == ST_CONTINUE))
        p = p->parent;
    bool direct = p && p->kind == ST_FOR && p->loop == l;
    if (st->kind == ST_CONTINUE && !direct)
        return;                          /* it continues a loop of its own */
    uint32_t keyword = st->range.begin + (st->kind == ST_RETURN ? 6 : 8);
    bool no_goto = J->E->be->gpu && J->E->be->gpu->no_goto;
    if (no_goto && !direct) {
        oklc_model_error(J->E->c, st->range.begin, "the %s backend has no goto, and this %s "
                         "inside a loop or switch of the %s loop cannot end its iteration: "
                         "leave the inner loop first, then %s",
                         J->E->be->name, st->kind == ST_RETURN ? "return" : "continue",
                         l->kind == LOOP_OUTER ? "@outer" : "@inner",
                         st->kind == ST_RETURN ? "return" : "continue");
        return;
    }
    if (no_goto)
        label_at_end(J, l);              /* the body in a do ... while (0) */
    const char *to = direct && (J->loops_stay || no_goto)
                         ? "continue"
                         : oklc_arena_printf(&J->E->c->arena, "goto %s", label_at_end(J, l));
    oklc_edit_replace(&J->E->ed, st->range.begin, keyword, to);
}

void oklc_emit_jumps(Emit *E, const Kernel *k, bool loops_stay)
{
    Jumps J = {E, k, loops_stay, {0}, {0}};
    if (k->root)
        jump(&J, k->root);
}

/* ---- what a launch checks ------------------------------------------------------------------ */

typedef VEC(LaunchCheck) LaunchChecks;

const Var *oklc_emit_nest_var(const Kernel *k, const Loop *top, const Loop *l)
{
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if (oklc_in_range(top->stmt, v->name_off) && !oklc_in_range(l->header, v->name_off) &&
            oklc_refers_in(v, l->header))
            return v;
    }
    return NULL;
}

static void add_check(Emit *E, LaunchChecks *v, const Loop *l, const char *refused,
                      const char *message, const char *a, const char *b)
{
    LaunchCheck c = {l, refused, message, a, b};
    vec_push(&E->c->arena, v, c);
}

/* A step or tile size neither Clang nor an instance showed positive (an
 * argument, a constexpr variable): what the counts divide by. */
static void positive_check(Emit *E, LaunchChecks *v, const Loop *l, const char *what,
                           const char *text)
{
    Arena *a = &E->c->arena;
    const char *x = oklc_arena_printf(a, "(long long)(%s)", text);
    add_check(E, v, l, oklc_arena_printf(a, "%s <= 0", x),
              oklc_arena_printf(a, "the %s of the %s loop at line %u is %%lld: it must be "
                                   "positive", what, l->tile_part ? "@tile"
                                   : l->kind == LOOP_OUTER ? "@outer" : "@inner",
                                oklc_model_line(E->c, l->stmt.begin)),
              x, "0");
}

/* The number of threads on axis `axis` of the block of the nest of `top`
 * (docs/launchers.md: the largest count of its @inner loops there, at
 * least 1), as C++ of the arguments: `known` and the counts not known. */
static const char *block_text(Emit *E, const Kernel *k, const Loop *top, int axis)
{
    Arena *a = &E->c->arena;
    long long known = 1;
    const char *b = NULL;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->kind != LOOP_INNER || l->axis != axis || !oklc_in_range(top->stmt, l->stmt.begin))
            continue;
        if (l->trips_known) {
            known = l->ntrips > known ? l->ntrips : known;
            continue;
        }
        const char *n = oklc_arena_printf(a, "(long long)(%s)", l->trips_wide);
        b = b ? oklc_arena_printf(a, "(%s > %s ? %s : %s)", n, b, n, b) : n;
    }
    return oklc_arena_printf(a, "(%s > %lld ? %s : %lld)", b, known, b, known);
}

/* [[cl::reqd_work_group_size(x, y, z)]]: each axis of the block whose
 * size is known at launch only must be the size required (those known
 * at translation were checked). */
static void required_checks(Emit *E, LaunchChecks *v, const Kernel *k, const Loop *top)
{
    int64_t want[3], have[3];
    if (!k->reqd_wgs || !oklc_model_sizes(k->reqd_wgs, want))
        return;
    oklc_model_block(k, top, have);
    Arena *a = &E->c->arena;
    for (int x = 0; x < 3; x++) {
        if (have[x] >= 0)
            continue;
        const char *n = block_text(E, k, top, x);   /* (@max_inner_dims: known) */
        add_check(E, v, top, oklc_arena_printf(a, "%s != %lldLL", n, (long long)want[x]),
                  oklc_arena_printf(a, "the @outer loop at line %u runs blocks of %%lld threads "
                                       "on axis %d, but cl::reqd_work_group_size requires %%lld",
                                    oklc_model_line(E->c, top->stmt.begin), x),
                  n, oklc_arena_printf(a, "%lldLL", (long long)want[x]));
    }
}

bool oklc_emit_bounded_inner(const Loop *top, const Loop *l)
{
    return top->max_inner_dims && l->kind == LOOP_INNER && !l->trips_known && l->axis >= 0 &&
           l->axis < 3 && oklc_in_range(top->stmt, l->stmt.begin);
}

bool oklc_emit_device_checked(const Kernel *k, const Loop *top, const Loop *l)
{
    return oklc_emit_bounded_inner(top, l) && oklc_emit_nest_var(k, top, l);
}

const char *oklc_emit_inner_max(const Loop *top, const Loop *l)
{
    const Attr *mid = top->max_inner_dims;
    return l->axis < mid->nargs ? mid->args[l->axis].text : "1";
}

const char *oklc_emit_fault(Emit *E, const Loop *top, const Loop *l)
{
    return oklc_arena_printf(&E->c->arena, "the %s loop at line %u runs more %s on axis %d "
                             "than the %s threads of its block (@max_inner_dims)",
                             l->tile_part ? "@tile" : "@inner",
                             oklc_model_line(E->c, l->stmt.begin),
                             l->tile_part == 1 ? "tiles" : "iterations", l->axis,
                             oklc_emit_inner_max(top, l));
}

size_t oklc_emit_launch_checks(Emit *E, const Kernel *k, const Loop *top,
                               const LaunchCheck **out)
{
    LaunchChecks v = {0};
    required_checks(E, &v, k, top);
    Arena *a = &E->c->arena;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (!oklc_in_range(top->stmt, l->stmt.begin) || !l->analyzed ||
            oklc_emit_nest_var(k, top, l))
            continue;
        if (l->tile_part == 1 && l->tile_value == INT64_MIN)
            positive_check(E, &v, l, "tile size", l->tile_size);
        if (!l->stride_known && l->tile_part != 2)
            positive_check(E, &v, l, "step", l->tile_part ? l->tile_other->stride : l->stride);
        if (oklc_emit_bounded_inner(top, l)) {
            const char *n = oklc_arena_printf(a, "(long long)(%s)", l->trips_wide);
            const char *max = oklc_arena_printf(a, "(long long)(%s)", oklc_emit_inner_max(top, l));
            add_check(E, &v, l, oklc_arena_printf(a, "%s > %s", n, max),
                      oklc_arena_printf(a, "the @inner loop at line %u runs %%lld iterations "
                                           "on axis %d, more than the %%lld threads of its "
                                           "block (@max_inner_dims)",
                                        oklc_model_line(E->c, l->stmt.begin), l->axis),
                      n, max);
        }
    }
    *out = v.data;
    return v.len;
}

/* ---- kernels and instances ------------------------------------------------------------- */

static const Kernel *find_kernel(const Model *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->nkernels; i++)
        if (strlen(m->kernels[i]->name) == len && !memcmp(m->kernels[i]->name, name, len))
            return m->kernels[i];
    return NULL;
}

/* "scale<float, 256>": its template arguments. */
static size_t instance_args(Emit *E, const char *open, const char ***out)
{
    VEC(const char *) args = {0};
    const char *end = strrchr(open, '>');
    int depth = 0;
    const char *start = open + 1;
    for (const char *p = open + 1; p <= end; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && p < end)
            depth--;
        if (p == end || (*p == ',' && depth == 0)) {
            const char *b = start, *e = p;
            while (b < e && isspace((unsigned char)*b))
                b++;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            const char *a = oklc_arena_strndup(&E->c->arena, b, (size_t)(e - b));
            vec_push(&E->c->arena, &args, a);
            start = p + 1;
        }
    }
    *out = args.data;
    return args.len;
}

static void add_kernel(Emit *E, const Kernel *k, const char *name, const char *suffix,
                       const char **targs, size_t ntargs)
{
    const char *entry = oklc_arena_printf(&E->c->arena, "_occa_entry_%s%s", k->name, suffix);
    KernelOut ko = {.kernel = k, .name = name, .entry = entry, .targs = targs, .ntargs = ntargs,
                    .suffix = suffix};
    vec_push(&E->c->arena, &E->kernels, ko);
}

/* A size or step that is positive when `names` have the instance's values
 * (`instance`: its name), as a literal must be; false after the error. A
 * value that stays unknown (a constexpr variable) is the launcher's check
 * (docs/launchers.md). */
static bool positive_in(Emit *E, const char *instance, const ConstNames *names, uint32_t at,
                        const char *what, const char *text)
{
    int64_t v;
    ConstEval st = oklc_const_eval(text, names, &v);
    if (st == CONST_UNKNOWN || (st == CONST_VALUE && v > 0 && v <= INT32_MAX))
        return true;
    if (st == CONST_OVERFLOW)
        oklc_model_error(E->c, at, "in instance '%s': the %s %s overflows (or divides by zero) "
                         "when evaluated", instance, what, text);
    else
        oklc_model_error(E->c, at, "in instance '%s': the %s %s is %lld: it must be %s",
                         instance, what, text, (long long)v,
                         v > 0 ? "at most 2147483647" : "positive");
    return false;
}

/* The tile sizes and steps of kernel k's instance, once its template
 * parameters have values: 0 or -1 is no more a size here than written. */
static bool instance_sizes(Emit *E, const Kernel *k, const char *instance, const char **targs,
                           size_t ntargs)
{
    ConstNames names = {k->tparams, targs, ntargs < k->ntparams ? ntargs : k->ntparams};
    bool ok = true;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->tile_part == 1 && l->tile_value == INT64_MIN)
            ok &= positive_in(E, instance, &names, l->attr->args[0].off, "tile size", l->tile_size);
        if (l->tile_part != 1 && l->analyzed && !l->stride_known)
            ok &= positive_in(E, instance, &names, l->step.begin, "step", l->stride);
    }
    return ok;
}

bool oklc_emit_kernel_list(Emit *E)
{
    oklc_ctx *c = E->c;
    for (size_t i = 0; i < E->m->nkernels; i++) {
        const Kernel *k = E->m->kernels[i];
        if (!k->is_template)
            add_kernel(E, k, k->name, "", NULL, 0);
    }
    bool ok = true;
    for (size_t i = 0; i < c->instances.len; i++) {
        const char *inst = c->instances.data[i];
        const char *open = strchr(inst, '<');
        size_t nlen = open ? (size_t)(open - inst) : strlen(inst);
        while (nlen && isspace((unsigned char)inst[nlen - 1]))
            nlen--;
        const Kernel *k = find_kernel(E->m, inst, nlen);
        if (!k || !k->is_template || !open || !strrchr(open, '>')) {
            oklc_diag_error(c, (Loc){0}, "instance '%s': %s", inst,
                            !k ? "no kernel has this name"
                            : !k->is_template ? "the kernel is not a template"
                                              : "write the template arguments: name<T, N>");
            ok = false;
            continue;
        }
        const char **targs;
        size_t ntargs = instance_args(E, open, &targs);
        Buf name;               /* canonical: "scale<float, 256>" */
        oklc_buf_init(&name, &c->arena);
        oklc_buf_printf(&name, "%s<", k->name);
        for (size_t a = 0; a < ntargs; a++)
            oklc_buf_printf(&name, "%s%s", a ? ", " : "", targs[a]);
        oklc_buf_puts(&name, ">");
        ok &= instance_sizes(E, k, name.data, targs, ntargs);
        add_kernel(E, k, name.data, oklc_arena_printf(&c->arena, "_%zu", i), targs, ntargs);
    }
    return ok;
}
