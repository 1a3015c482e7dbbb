/*
 * functions.c - functions and kernels in the kernel model: a kernel's
 * parameters, template parameters and body (the root of its statement
 * tree), and what the checks need once it is walked.
 */
#include <string.h>

#include "walk.h"

/* The variable an @atomic writes into: the first one its x mentions. */
static Var *first_var_in(Kernel *k, Range r)
{
    uint32_t best = UINT32_MAX;
    Var *found = NULL;
    for (size_t n = 0; n < k->nparams + k->nlocals; n++) {
        Var *v = n < k->nparams ? k->params[n] : k->locals[n - k->nparams];
        for (size_t i = 0; i < v->nrefs; i++)
            if (v->refs[i].begin >= r.begin && v->refs[i].begin < r.end &&
                v->refs[i].begin < best) {
                best = v->refs[i].begin;
                found = v;
            }
    }
    return found;
}

static void atomic_targets(Kernel *k)
{
    for (size_t i = 0; i < k->natomics; i++) {
        Atomic *a = k->atomics[i];
        a->target = first_var_in(k, a->lhs);
        a->source = first_var_in(k, a->rhs);
    }
}

/* ---- declarations -------------------------------------------------------------------------- */

/* The statements directly in the body, and which are @outer loops. */
static void top_statements(Walk *W, Kernel *k)
{
    if (!k->root)
        return;
    k->top = oklc_arena_alloc(&W->c->arena, (k->root->nkids + 1) * sizeof *k->top);
    for (size_t i = 0; i < k->root->nkids; i++) {
        const Stmt *s = k->root->kids[i];
        TopStmt *t = &k->top[k->ntop++];
        t->range = s->range;
        for (size_t j = 0; j < k->nouters; j++)
            if (k->outers[j]->stmt.begin == s->range.begin)
                t->outer = k->outers[j];
        if (s->kind == ST_DECL && s->ndecls)
            t->decl = s->decls[0];
    }
}

static void params(Walk *W, CXCursor fn, Kernel *k);

/* The offset after "template <...>" at `off` (the parameters' angle
 * brackets counted; ">>" closes two). */
static uint32_t after_template_head(Walk *W, uint32_t off)
{
    size_t k = tok_at(W, off);
    if (k >= W->ntoks - 1 || !oklc_tok_eq(W->toks[k], "template"))
        return off;
    int depth = 0;
    for (k++; k < W->ntoks - 1; k++) {
        const Token *t = W->toks[k];
        if (oklc_tok_is_punct(t, P_LPAREN) || oklc_tok_is_punct(t, P_LBRACKET)) {
            k = closing(W, k);
        } else if (oklc_tok_is_punct(t, P_LT)) {
            depth++;
        } else if (oklc_tok_is_punct(t, P_GT) || oklc_tok_is_punct(t, P_SHR)) {
            depth -= oklc_tok_is_punct(t, P_SHR) ? 2 : 1;
            if (depth <= 0)
                return k + 1 < W->ntoks ? W->toks[k + 1]->loc.off : off;
        }
    }
    return off;
}

/* A parameter of a kernel's prototype: its attributes are taken as those
 * of a parameter (the definition's parameters are the kernel's). */
static enum CXChildVisitResult prototype_param(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(cur) == CXCursor_ParmDecl)
        oklc_walk_declare(data, cur, VAR_PARAM, NULL);
    return CXChildVisit_Continue;
}

/* OpenCL's kernel attributes, by their place in Kernel (reqd_wgs,
 * wgs_hint, vec_hint); -1 for others. */
static int kernel_cl_attr(AttrId id)
{
    return id == ATTR_CL_REQD_WGS ? 0 : id == ATTR_CL_WGS_HINT ? 1 : id == ATTR_CL_VEC_HINT ? 2
                                                                                          : -1;
}

/* OpenCL's kernel attributes on what is not a kernel's definition. */
static void misplaced_cl(Walk *W, Attr *const cl[3])
{
    for (int c = 0; c < 3; c++)
        if (cl[c])
            oklc_walk_misplaced(W, cl[c], NULL);
}

void oklc_walk_function(Walk *W, CXCursor cur, CXCursorKind kind)
{
    Range ext = oklc_cx_range(cur);
    uint32_t name = oklc_cx_offset(clang_getCursorLocation(cur));
    AttrList next = {0}, prev = {0}, ptr = {0};
    oklc_walk_decl_attrs(W, ext, name, &next, &prev, &ptr);
    Attr *kattr = NULL, *cl[3] = {0};
    for (size_t i = 0; i < next.len; i++) {
        Attr *a = next.data[i];
        int c = kernel_cl_attr(a->id);
        if (a->id == ATTR_KERNEL && !kattr)
            kattr = a;
        else if (a->id == ATTR_KERNEL || (c >= 0 && cl[c]))
            oklc_walk_misplaced(W, a, "a kernel that has it already");
        else if (c >= 0)
            cl[c] = a;
        else if (a->id != ATTR_RESTRICT)
            oklc_walk_misplaced(W, a, "a function");
    }
    for (size_t i = 0; i < prev.len; i++)
        oklc_walk_misplaced(W, prev.data[i], "a function");
    for (size_t i = 0; i < ptr.len; i++)
        if (ptr.data[i]->id != ATTR_RESTRICT)
            oklc_walk_misplaced(W, ptr.data[i], "a function's result");
    if (kattr && kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) {
        oklc_walk_misplaced(W, kattr, "a member function");
        kattr = NULL;
    }
    if (kattr && !clang_isCursorDefinition(cur)) {
        /* @kernel void k(...); then the body elsewhere: the body is the kernel */
        CXCursor def = clang_getCursorDefinition(cur);
        uint32_t off = clang_Cursor_isNull(def) ? UINT32_MAX
                                                : oklc_cx_offset(clang_getCursorLocation(def));
        if (off != UINT32_MAX) {
            vec_push(&W->c->arena, &W->kernel_defs, off);
            vec_push(&W->c->arena, &W->kernel_def_attrs, kattr);
        }
        misplaced_cl(W, cl);              /* the definition has them */
        vec_push(&W->c->arena, &W->kernel_protos,
                 kind == CXCursor_FunctionTemplate ? after_template_head(W, ext.begin)
                                                   : ext.begin);
        oklc_walk_visit(W, cur, prototype_param, W);    /* its @restrict, as the body's */
        return;
    }
    for (size_t i = 0; !kattr && i < W->kernel_defs.len; i++)
        if (W->kernel_defs.data[i] == name)
            kattr = W->kernel_def_attrs.data[i];
    if (!kattr)
        misplaced_cl(W, cl);
    if (!kattr) {
        Function *f = oklc_arena_alloc(&W->c->arena, sizeof *f);
        f->name = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
        f->decl = ext;
        f->name_off = name;
        oklc_walk_reserved(W, f->name, name);
        f->specs_at = kind == CXCursor_FunctionTemplate ? after_template_head(W, ext.begin)
                                                        : ext.begin;
        f->has_body = clang_isCursorDefinition(cur);
        f->is_template = kind == CXCursor_FunctionTemplate;
        f->is_variadic = clang_Cursor_isVariadic(cur);
        f->is_member = kind == CXCursor_CXXMethod || kind == CXCursor_Constructor ||
                       kind == CXCursor_Destructor ||
                       clang_getCursorKind(clang_getCursorSemanticParent(cur)) ==
                           CXCursor_StructDecl ||
                       clang_getCursorKind(clang_getCursorSemanticParent(cur)) ==
                           CXCursor_ClassDecl;
        vec_push(&W->c->arena, &W->functions, f);
        Kernel *saved = W->kernel;
        Function *outer = W->function;
        W->kernel = NULL;
        W->function = f;
        enum CXTypeKind rk = clang_getCanonicalType(clang_getCursorResultType(cur)).kind;
        f->returns_pointer = rk == CXType_Pointer;
        Walk keep = *W;              /* (a method of a local struct nests) */
        memset(&W->fparams, 0, sizeof W->fparams);
        memset(&W->flocals, 0, sizeof W->flocals);
        memset(&W->freturns, 0, sizeof W->freturns);
        oklc_walk_children(W, cur);
        f->params = W->fparams.data, f->nparams = W->fparams.len;
        f->locals = W->flocals.data, f->nlocals = W->flocals.len;
        f->returns = W->freturns.data, f->nreturns = W->freturns.len;
        W->fparams = keep.fparams;
        W->flocals = keep.flocals;
        W->freturns = keep.freturns;
        W->kernel = saved;
        W->function = outer;
        return;
    }
    Kernel *k = oklc_arena_alloc(&W->c->arena, sizeof *k);
    k->name = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
    k->attr = kattr;
    k->reqd_wgs = cl[0], k->wgs_hint = cl[1], k->vec_hint = cl[2];
    k->decl = ext;
    k->name_off = name;
    /* A kernel's name may start with _occa_ (OCCA's inline kernels are all
     * _occa_jit_kernel): what oklc names after a kernel holds the whole
     * name (_occa_<name>_0), so it meets none of oklc's own names. */
    k->is_template = kind == CXCursor_FunctionTemplate;
    CXCursor up = clang_getCursorSemanticParent(cur);
    if (clang_getCursorKind(up) == CXCursor_Namespace)
        k->in_namespace = oklc_cx_string(W->c, clang_getCursorSpelling(up));
    k->return_type = oklc_cx_string(W->c, clang_getTypeSpelling(clang_getCursorResultType(cur)));
    W->kernel = k;
    W->loop = NULL;
    W->ctl.len = 0;
    W->loops.len = W->locals.len = W->barriers.len = W->atomics.len = W->dims.len = 0;
    W->loops.data = NULL, W->loops.cap = 0;
    W->locals.data = NULL, W->locals.cap = 0;
    W->barriers.data = NULL, W->barriers.cap = 0;
    W->atomics.data = NULL, W->atomics.cap = 0;
    W->dims.data = NULL, W->dims.cap = 0;
    params(W, cur, k);
    k->loops = W->loops.data, k->nloops = W->loops.len;
    k->locals = W->locals.data, k->nlocals = W->locals.len;
    k->barriers = W->barriers.data, k->nbarriers = W->barriers.len;
    k->atomics = W->atomics.data, k->natomics = W->atomics.len;
    k->dims = W->dims.data, k->ndims = W->dims.len;
    atomic_targets(k);
    VEC(Loop *) outers = {0};
    for (size_t i = 0; i < k->nloops; i++)
        if (!k->loops[i]->parent && k->loops[i]->kind == LOOP_OUTER &&
            k->loops[i]->tile_part < 2)
            vec_push(&W->c->arena, &outers, k->loops[i]);
    k->outers = outers.data, k->nouters = outers.len;
    top_statements(W, k);
    vec_push(&W->c->arena, &W->kernels, k);
    W->kernel = NULL;
    W->tparams = NULL, W->ntparams = 0;
}

typedef struct ParamWalk {
    Walk   *W;
    Kernel *k;
    VEC(Var *) params;
    VEC(const char *) tparams;
    Buf     tp_text;
} ParamWalk;

static enum CXChildVisitResult param_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    ParamWalk *p = data;
    Walk *W = p->W;
    CXCursorKind k = clang_getCursorKind(cur);
    switch (k) {
    case CXCursor_ParmDecl: {
        Var *v = oklc_walk_declare(W, cur, VAR_PARAM, NULL);
        vec_push(&W->c->arena, &p->params, v);
        break;
    }
    case CXCursor_TemplateTypeParameter:
    case CXCursor_NonTypeTemplateParameter:
    case CXCursor_TemplateTemplateParameter: {
        const char *n = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
        vec_push(&W->c->arena, &p->tparams, n);
        if (p->tp_text.len)
            oklc_buf_puts(&p->tp_text, ", ");
        oklc_buf_puts(&p->tp_text, oklc_walk_range_text(W, oklc_cx_range(cur)));
        break;
    }
    case CXCursor_CompoundStmt: {
        p->k->params = p->params.data;
        p->k->nparams = p->params.len;
        p->k->body = oklc_cx_range(cur);
        W->body = cur;
        W->tparams = p->k->tparams = p->tparams.data;
        W->ntparams = p->k->ntparams = p->tparams.len;
        /* the body's statements, one by one, under its node */
        Stmt *root = oklc_arena_alloc(&W->c->arena, sizeof *root);
        root->kind = ST_COMPOUND;
        root->range = p->k->body;
        p->k->root = root;
        W->stmt = root;
        oklc_walk_children(W, cur);
        W->stmt = NULL;
        break;
    }
    default:
        break;
    }
    return CXChildVisit_Continue;
}

static void params(Walk *W, CXCursor fn, Kernel *k)
{
    ParamWalk p = {.W = W, .k = k};
    oklc_buf_init(&p.tp_text, &W->c->arena);
    oklc_walk_visit(W, fn, param_visit, &p);
    if (!k->params) {
        k->params = p.params.data;
        k->nparams = p.params.len;
    }
    if (p.tp_text.len)
        k->template_params = p.tp_text.data;
}

