/*
 * model.c - builds the kernel model from Clang's AST: the walk.
 *
 * One visit of the AST in source order. libclang keeps the work list of
 * statements and expressions; each cursor whose children we walk gets a
 * frame on our stack (Frame, in the arena) saying what entering it changed
 * (the statement node being filled, a control-flow construct, a loop
 * level), undone when its subtree ends. So a line of 4,000 terms or a
 * chain of 5,000 else-ifs costs no C stack; only walks inside walks (a
 * function's body, an initializer) recurse, as deep as their braces.
 *
 * What each construct adds is built in the files walk.h lists; this one
 * keeps the statement tree, the tokens of the normalized text and the
 * attributes each construct claims.
 */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

static Diag *vdiag(oklc_ctx *c, DiagLevel lv, uint32_t off, const char *fmt, va_list ap)
{
    const Normalized *nz = c->norm;
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_vprintf(&b, fmt, ap);
    Diag *d = oklc_diag(c, lv, nz ? oklc_norm_loc(nz, off) : (Loc){0}, "%s", b.data);
    const SrcMapEntry *e = nz ? oklc_norm_lookup(nz, off) : NULL;
    if (e)
        oklc_tok_note_expansion(c, d, e->tok);
    return d;
}

unsigned oklc_model_line(oklc_ctx *c, uint32_t off)
{
    return (unsigned)oklc_presumed_line(c, oklc_norm_loc(c->norm, off));
}

bool oklc_model_sizes(const Attr *a, int64_t out[3])
{
    for (int i = 0; i < 3; i++) {
        uint64_t v = 1;
        bool u;
        const char *err, *t = i < a->nargs ? a->args[i].text : "1";
        if (!oklc_int_literal(t, strlen(t), &v, &u, &err) || v > INT32_MAX)
            return false;
        out[i] = (int64_t)v;
    }
    return true;
}

void oklc_model_block(const Kernel *k, const Loop *top, int64_t block[3])
{
    if (top->max_inner_dims && oklc_model_sizes(top->max_inner_dims, block))
        return;
    for (int a = 0; a < 3; a++)
        block[a] = top->max_inner_dims ? -1 : 1;
    for (size_t i = 0; !top->max_inner_dims && i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->kind != LOOP_INNER || l->axis < 0 || l->axis > 2 || !oklc_in_range(top->stmt, l->stmt.begin) || block[l->axis] < 0)
            continue;
        block[l->axis] = !l->trips_known ? -1 : l->ntrips > block[l->axis] ? l->ntrips
                                                                           : block[l->axis];
    }
}

Diag *oklc_model_error(oklc_ctx *c, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = vdiag(c, DIAG_ERROR, off, fmt, ap);
    va_end(ap);
    return d;
}

Diag *oklc_model_verror(oklc_ctx *c, uint32_t off, const char *fmt, va_list ap)
{
    return vdiag(c, DIAG_ERROR, off, fmt, ap);
}

Diag *oklc_model_diag(oklc_ctx *c, DiagLevel lv, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = vdiag(c, lv, off, fmt, ap);
    va_end(ap);
    return d;
}

/* ---- tokens of the normalized text -------------------------------------------------- */

static void lex_text(Walk *W)
{
    oklc_ctx *c = W->c;
    SrcFile *f = oklc_src_new(c, "<normalized>", W->nz->text, W->nz->len, true);
    VEC(Token *) v = {0};
    for (Token *t = oklc_lex(c, oklc_view_new(c, f, NULL, 0), 0); t; t = t->next)
        vec_push(&c->arena, &v, t);
    W->toks = v.data;
    W->ntoks = v.len;
}

/* Clang's extent of a statement that ends with an expression (x = 1;
 * for (...) x = 1;) stops before the ';': the statement's own range
 * includes it, so that text put after a statement goes after its end. */
Range oklc_walk_with_semicolon(Walk *W, Range r)
{
    size_t k = tok_at(W, r.end);
    if (k == 0 || k >= W->ntoks - 1 || !oklc_tok_is_punct(W->toks[k], P_SEMI))
        return r;
    const Token *last = W->toks[k - 1];
    if (oklc_tok_is_punct(last, P_RBRACE) || oklc_tok_is_punct(last, P_SEMI))
        return r;
    r.end = tok_end(W->toks[k]);
    return r;
}

/* Text of tokens [from, to): one blank where the source had whitespace. */
const char *oklc_walk_text_of(Walk *W, size_t from, size_t to)
{
    Buf b;
    oklc_buf_init(&b, &W->c->arena);
    for (size_t k = from; k < to; k++) {
        if (k > from && (W->toks[k]->flags & TF_SPACE))
            oklc_buf_putc(&b, ' ');
        oklc_buf_putn(&b, W->toks[k]->text, W->toks[k]->len);
    }
    return b.data;
}

const char *oklc_walk_range_text(Walk *W, Range r)
{
    return oklc_walk_text_of(W, tok_at(W, r.begin), tok_at(W, r.end));
}

/* ---- visiting without jumping through libclang ------------------------------------------ */

/* Running out of memory jumps to the stage entry; a jump through
 * libclang's C++ frames would skip its destructors and leak. So every
 * visitor that allocates runs under its own jump target, returns normally
 * to libclang with CXChildVisit_Break, and the jump goes on once
 * clang_visitChildren has returned. */
typedef struct Guard {
    Walk              *W;
    CXCursorVisitor    fn;
    CXClientData       data;
} Guard;

static enum CXChildVisitResult guarded(CXCursor cur, CXCursor parent, CXClientData data)
{
    Guard *g = data;
    oklc_ctx *c = g->W->c;
    if (g->W->oom)
        return CXChildVisit_Break;
    jmp_buf jb, *outer = c->arena.oom;
    enum CXChildVisitResult r = CXChildVisit_Break;
    c->arena.oom = &jb;
    if (!setjmp(jb))
        r = g->fn(cur, parent, g->data);
    else
        g->W->oom = true;
    c->arena.oom = outer;
    return g->W->oom ? CXChildVisit_Break : r;
}

void oklc_walk_visit(Walk *W, CXCursor cur, CXCursorVisitor fn, CXClientData data)
{
    Guard g = {W, fn, data};
    clang_visitChildren(cur, guarded, &g);
    if (W->oom)
        oklc_arena_oom(&W->c->arena);
}

/* ---- attributes ------------------------------------------------------------------------ */

static int by_anchor(const void *a, const void *b)
{
    const Attr *x = *(Attr *const *)a, *y = *(Attr *const *)b;
    if (x->anchor_off != y->anchor_off)
        return x->anchor_off < y->anchor_off ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void index_attrs(Walk *W)
{
    size_t n = W->nz->nattrs;
    W->anchors = oklc_arena_alloc(&W->c->arena, (n ? n : 1) * sizeof(Attr *));
    W->claimed = oklc_arena_alloc(&W->c->arena, (n ? n : 1) * sizeof(bool));
    if (n) {
        memcpy(W->anchors, W->nz->attrs, n * sizeof(Attr *));
        qsort(W->anchors, n, sizeof(Attr *), by_anchor);
    }
    /* a plugin's attributes are placed by the plugin pass (plugin/plugin.c) */
    for (size_t i = 0; i < n; i++)
        W->claimed[i] = W->anchors[i]->id == ATTR_PLUGIN;
}

/* Claims the unclaimed attributes of `kind` anchored in [lo, hi]. */
void oklc_walk_claim(Walk *W, AnchorKind kind, uint32_t lo, uint32_t hi, AttrList *out)
{
    size_t n = W->nz->nattrs, a = 0, b = n;
    while (a < b) {                      /* first anchor >= lo */
        size_t mid = a + (b - a) / 2;
        if (W->anchors[mid]->anchor_off < lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i < n && W->anchors[i]->anchor_off <= hi; i++)
        if (!W->claimed[i] && W->anchors[i]->anchor == kind) {
            W->claimed[i] = true;
            vec_push(&W->c->arena, out, W->anchors[i]);
        }
}

void oklc_walk_misplaced(Walk *W, Attr *a, const char *what)
{
    Model *m = W->m;
    size_t n = m->nmisplaced + 1;
    m->misplaced = oklc_arena_append(&W->c->arena, m->misplaced, n - 1, sizeof(Attr *));
    m->misplaced_what = oklc_arena_append(&W->c->arena, m->misplaced_what, n - 1,
                                          sizeof(char *));
    m->misplaced[n - 1] = a;
    m->misplaced_what[n - 1] = what;
    m->nmisplaced = n;
}

/* The code oklc writes names its own variables, labels and functions
 * _occa_...: a user's name never meets one of them. */
void oklc_walk_reserved(Walk *W, const char *name, uint32_t off)
{
    if (!W->o->own_text && !strncmp(name, "_occa_", 6))
        oklc_model_error(W->c, off, "'%s': names that start with '_occa_' are oklc's own (the "
                         "code it writes uses them); rename it", name);
}

/* ---- the walk ------------------------------------------------------------------- */

/* Walks within walks (a function's body, a declaration's initializer)
 * are C recursion: their depth follows the nesting of braces, which Clang
 * bounds; past this many, the rest is not walked and an error says so. */
#define WALK_NESTING_MAX 512

bool oklc_walk_is_expression(CXCursorKind k)
{
    return clang_isExpression(k) || k == CXCursor_UnexposedExpr;
}

static void enter_ctl(Walk *W, CXCursor cur, CXCursorKind k, Range r, Frame *f)
{
    CtlKind kind = k == CXCursor_IfStmt ? CTL_IF : k == CXCursor_SwitchStmt ? CTL_SWITCH
                                                                            : CTL_LOOP;
    const char *kw = k == CXCursor_IfStmt ? "if" : k == CXCursor_SwitchStmt ? "switch" : "while";
    /* do ... while (c): the condition after the body */
    uint32_t from = k == CXCursor_DoStmt ? r.begin + 2 : r.begin;
    oklc_walk_push_ctl(W, kind, cur, oklc_walk_paren_after(W, from, kw), NULL);
    f->ctl = true;
}

/* May an expression inside `bound` start where an attribute that starts
 * statements is anchored and still unclaimed? If not, it claims nothing
 * and its extent is not needed: Clang computes the extent of a + b from
 * those of a and b, so asking it for every operator of a line of N terms
 * costs N^2. */
static bool may_claim(const Walk *W, Range bound)
{
    if (bound.begin == UINT32_MAX || bound.end == UINT32_MAX)
        return true;
    size_t n = W->nz->nattrs, a = 0, b = n;
    while (a < b) {                      /* first anchor >= bound.begin */
        size_t mid = a + (b - a) / 2;
        if (W->anchors[mid]->anchor_off < bound.begin)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i < n && W->anchors[i]->anchor_off <= bound.end; i++)
        if (!W->claimed[i] && W->anchors[i]->anchor == ANCHOR_NEXT)
            return true;
    return false;
}

/* The extent of a statement or expression that has no node of its own
 * (`known` NULL), when something needs it: an unknown one otherwise. */
static Range extent(Walk *W, CXCursor cur, CXCursorKind k, Frame *f, const Range *known)
{
    if (known)
        return *known;
    if (oklc_walk_is_expression(k) && !may_claim(W, f->bound))
        return (Range){UINT32_MAX, UINT32_MAX};
    /* of while (c) while (c) ... only the start is needed (dispatch): its
     * children ask for their own extents, the bound being open */
    if (oklc_cx_ends_in_body(k)) {
        f->bound = (Range){oklc_cx_begin(cur), UINT32_MAX};
        return f->bound;
    }
    f->bound = oklc_cx_range(cur);
    f->end = f->bound.end;
    return f->bound;
}

/* A statement or an expression, inside a function body: what it adds to
 * the model. False: its children are walked already (or not at all). */
static bool dispatch(Walk *W, CXCursor cur, CXCursor parent, CXCursorKind k, Frame *f,
                     const Range *known)
{
    AttrList attrs = {0};
    Range r = extent(W, cur, k, f, known);
    if (r.begin != UINT32_MAX && k != CXCursor_DeclStmt)
        oklc_walk_claim(W, ANCHOR_NEXT, r.begin, r.begin, &attrs);
    oklc_walk_op(W, cur, k);
    switch (k) {
    case CXCursor_ForStmt:
    case CXCursor_CXXForRangeStmt:
        oklc_walk_for(W, cur, &attrs, f);
        return true;
    case CXCursor_DeclStmt:
        oklc_walk_local_decls(W, cur, parent);
        return false;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_SwitchStmt:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        enter_ctl(W, cur, k, r, f);
        return true;
    case CXCursor_ReturnStmt:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
    case CXCursor_GotoStmt:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        oklc_walk_early_exit(W, cur, k);
        if (k == CXCursor_ReturnStmt && W->function && !W->in_lambda)
            oklc_walk_returned_value(W, cur);
        return true;
    case CXCursor_CallExpr:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        if (W->kernel)
            oklc_walk_dim_access(W, cur);
        oklc_walk_barrier_call(W, cur);
        oklc_walk_call(W, cur);
        return true;
    case CXCursor_UnaryOperator:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        oklc_walk_component_address(W, cur);
        return true;
    case CXCursor_DeclRefExpr:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        oklc_walk_reference(W, cur);
        return true;
    default:
        oklc_walk_statement_attrs(W, cur, k, &attrs);
        return true;
    }
}

static StmtKind stmt_kind(CXCursorKind k)
{
    switch (k) {
    case CXCursor_CompoundStmt: return ST_COMPOUND;
    case CXCursor_DeclStmt: return ST_DECL;
    case CXCursor_IfStmt: return ST_IF;
    case CXCursor_ForStmt: case CXCursor_CXXForRangeStmt: return ST_FOR;
    case CXCursor_WhileStmt: return ST_WHILE;
    case CXCursor_DoStmt: return ST_DO;
    case CXCursor_SwitchStmt: return ST_SWITCH;
    case CXCursor_ReturnStmt: return ST_RETURN;
    case CXCursor_BreakStmt: return ST_BREAK;
    case CXCursor_ContinueStmt: return ST_CONTINUE;
    case CXCursor_GotoStmt: return ST_GOTO;
    case CXCursor_NullStmt: return ST_NULL;
    default: return oklc_walk_is_expression(k) ? ST_EXPR : ST_OTHER;
    }
}

/* The head of a statement: what runs before (or around) its body. */
static Range stmt_head(Walk *W, CXCursorKind k, Range r)
{
    switch (k) {
    case CXCursor_IfStmt: return oklc_walk_paren_after(W, r.begin, "if");
    case CXCursor_WhileStmt: return oklc_walk_paren_after(W, r.begin, "while");
    case CXCursor_SwitchStmt: return oklc_walk_paren_after(W, r.begin, "switch");
    case CXCursor_DoStmt: return oklc_walk_paren_after(W, r.begin + 2, "while");
    case CXCursor_ForStmt: case CXCursor_CXXForRangeStmt: return oklc_walk_paren_after(W, r.begin, "for");
    default: return (Range){r.begin, r.begin};
    }
}

/* The extent of a statement of a kernel. Of one that ends in its body,
 * only its start (Clang would descend to its innermost body for the
 * end): its node's end is its last child's, once that is left. The whole
 * extent where it may lie in the head of the statement around it (in_head
 * compares the ends) or is not in the normalized text. */
static Range stmt_extent(CXCursor cur, CXCursorKind k, const Stmt *up, Frame *f)
{
    if (!oklc_cx_ends_in_body(k))
        return oklc_cx_range(cur);
    uint32_t b = oklc_cx_begin(cur);
    if (b == UINT32_MAX || (up && up->head.end > up->head.begin && b >= up->head.begin &&
                            b <= up->head.end))
        return oklc_cx_range(cur);
    f->open_end = true;
    return (Range){b, UINT32_MAX};
}

/* Every statement of a kernel gets a node in the statement tree (not the
 * ones inside another statement's head: a for's init, an if's condition),
 * and so does an expression in statement position. */
static bool statement(Walk *W, CXCursor cur, CXCursor parent, CXCursorKind k, Frame *f)
{
    Stmt *up = W->stmt;
    bool expr = oklc_walk_is_expression(k);
    W->uses_double |= expr && oklc_walk_names_double(clang_getCursorType(cur));
    W->uses_half |= expr && oklc_walk_names_half(clang_getCursorType(cur));
    f->expr = expr;
    if (!W->kernel || W->in_lambda || (expr && W->in_expr)) {
        W->in_expr += expr;
        return dispatch(W, cur, parent, k, f, NULL);
    }
    Range r = stmt_extent(cur, k, up, f);
    f->bound = r;
    f->end = r.end;
    bool in_head = up && r.begin >= up->head.begin && r.end <= up->head.end &&
                   up->head.end > up->head.begin;
    if (in_head || r.begin == UINT32_MAX) {
        W->in_expr += expr;
        return dispatch(W, cur, parent, k, f, &r);
    }
    Stmt *s = oklc_arena_alloc(&W->c->arena, sizeof *s);
    s->kind = stmt_kind(k);
    s->range = f->open_end ? r : oklc_walk_with_semicolon(W, r);
    s->head = stmt_head(W, k, r);
    s->trips = -1;
    s->parent = up;
    if (up) {
        up->kids = oklc_arena_append(&W->c->arena, up->kids, up->nkids, sizeof(Stmt *));
        up->kids[up->nkids++] = s;
    }
    W->stmt = s;
    f->node = s;
    f->up = up;
    f->nbarriers = W->barriers.len;
    W->in_expr += expr;
    return dispatch(W, cur, parent, k, f, &r);
}

/* The barrier of a function called by the statement s: a statement of
 * its own after s (flow.c), so the backends see it where it applies. */
static void barrier_after(Walk *W, Stmt *s, Barrier *b)
{
    s->has_barrier = false;
    Stmt *n = oklc_arena_alloc(&W->c->arena, sizeof *n);
    n->kind = ST_NULL;
    n->range = b->stmt;
    n->trips = -1;
    n->parent = s->parent;
    n->barrier = b;
    b->node = n;
    n->has_barrier = true;
    if (s->parent) {
        s->parent->kids = oklc_arena_append(&W->c->arena, s->parent->kids, s->parent->nkids,
                                            sizeof(Stmt *));
        s->parent->kids[s->parent->nkids++] = n;
    }
}

/* A statement that ends in its body ends where its last child does: that
 * child's extent is known by now (asked for, or found when it was left);
 * Clang is asked only where it is not. */
static void close_end(Walk *W, Frame *f, Stmt *s)
{
    f->end = f->last_end != UINT32_MAX ? f->last_end : oklc_cx_range(f->cur).end;
    s->range = oklc_walk_with_semicolon(W, (Range){s->range.begin, f->end});
}

/* What entering a frame's cursor changed, undone once its children are
 * walked; its parent's frame learns where it ends. */
static void leave(Walk *W, Frame *f)
{
    Stmt *s = f->node;
    if (s && f->open_end)
        close_end(W, f, s);
    if (f->child)
        W->frames.data[W->frames.len - 1].last_end = f->end;
    if (f->ctl)
        W->ctl.len--;
    if (f->for_loop)
        oklc_walk_for_end(W, f);
    W->in_lambda -= f->lambda;
    W->in_expr -= f->expr;
    if (!s)
        return;
    W->stmt = f->up;
    if (s->kind == ST_NULL && W->barriers.len > f->nbarriers) {
        s->barrier = W->barriers.data[f->nbarriers];
        s->barrier->node = s;
    }
    s->has_barrier = W->barriers.len > f->nbarriers;
    if (s->kind == ST_EXPR && s->has_barrier && vec_last(&W->barriers)->after_call)
        barrier_after(W, s, vec_last(&W->barriers));
}

static bool has_oklc_attrs(const Var *v)
{
    return v->shared || v->exclusive || v->restrict_ || v->dim || v->dim_order || v->global_ptr;
}

/* A declaration; true: look at its children. */
static bool declaration(Walk *W, CXCursor cur, CXCursorKind k)
{
    switch (k) {
    case CXCursor_VarDecl: {
        CXCursorKind sp = clang_getCursorKind(clang_getCursorSemanticParent(cur));
        bool global = sp == CXCursor_TranslationUnit || sp == CXCursor_Namespace;
        Var *v = oklc_walk_declare(W, cur, global ? VAR_GLOBAL : VAR_LOCAL, NULL);
        if (global)
            vec_push(&W->c->arena, &W->globals, v);
        else if (W->kernel)
            vec_push(&W->c->arena, &W->locals, v);
        return true;
    }
    case CXCursor_FieldDecl: {
        Var *v = oklc_walk_declare(W, cur, VAR_FIELD, NULL);
        if (has_oklc_attrs(v))
            vec_push(&W->c->arena, &W->fields, v);
        return false;
    }
    case CXCursor_TypedefDecl:
    case CXCursor_TypeAliasDecl: {
        Var *v = oklc_walk_declare(W, cur, VAR_TYPEDEF, NULL);
        vec_push(&W->c->arena, &W->type_names, v->name);
        if (k == CXCursor_TypeAliasDecl)
            oklc_walk_cxx_construct(W, cur, k);
        if (has_oklc_attrs(v))
            vec_push(&W->c->arena, &W->typedefs, v);
        return false;
    }
    default: {                              /* of a function that is not a kernel */
        Var *v = oklc_walk_declare(W, cur, VAR_PARAM, NULL);
        if (W->function && !W->in_lambda)
            vec_push(&W->c->arena, &W->fparams, v);
        return false;
    }
    }
}

/* Entering a cursor: what it adds to the model. True: walk its children
 * next, then leave(f). */
static bool enter(Walk *W, CXCursor cur, CXCursor parent, Frame *f)
{
    CXCursorKind k = clang_getCursorKind(cur);
    /* Clang finds where a + b is from where a is (asked at each operator
     * of a line of N terms: N^2); a built-in operator's operands lie in
     * the file it lies in, so they are not asked (f->main_file). */
    if (!f->main_file && !clang_Location_isFromMainFile(clang_getCursorLocation(cur)))
        return false;
    f->operands = k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator;
    switch (k) {
    case CXCursor_LambdaExpr:
        vec_push(&W->c->arena, &W->lambdas, oklc_cx_range(cur));
        W->in_lambda++;
        f->lambda = true;
        return true;
    case CXCursor_FunctionDecl:
    case CXCursor_FunctionTemplate:
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
        oklc_walk_function(W, cur, k);
        return false;
    case CXCursor_VarDecl:
    case CXCursor_FieldDecl:
    case CXCursor_TypedefDecl:
    case CXCursor_TypeAliasDecl:
    case CXCursor_ParmDecl:
        return declaration(W, cur, k);
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
        oklc_walk_record(W, cur, k);
        break;
    case CXCursor_Namespace:
    case CXCursor_UsingDirective:
    case CXCursor_UsingDeclaration:
    case CXCursor_ClassTemplate:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXReinterpretCastExpr:
    case CXCursor_CXXConstCastExpr:
    case CXCursor_CXXDynamicCastExpr:
    case CXCursor_CXXFunctionalCastExpr:
    case CXCursor_CXXNewExpr:
    case CXCursor_CXXDeleteExpr:
    case CXCursor_CXXThrowExpr:
    case CXCursor_CXXTryStmt:
    case CXCursor_CXXNullPtrLiteralExpr:
    case CXCursor_CXXThisExpr:
        oklc_walk_cxx_construct(W, cur, k);
        if (k == CXCursor_ClassTemplate)       /* a struct too: with methods, a class */
            oklc_walk_record(W, cur, k);
        break;
    case CXCursor_TypeRef:       /* sizeof(half), f<half>(x), a function's result */
        W->uses_half |= oklc_walk_names_half(clang_getCursorType(cur));
        break;
    default:
        break;
    }
    if (clang_isStatement(k) || oklc_walk_is_expression(k))
        return statement(W, cur, parent, k, f);
    /* namespaces, structs, templates: look inside */
    AttrList attrs = {0};
    Range r = oklc_cx_range(cur);
    if (r.begin != UINT32_MAX)
        oklc_walk_claim(W, ANCHOR_NEXT, r.begin, r.begin, &attrs);
    for (size_t i = 0; i < attrs.len; i++)
        oklc_walk_misplaced(W, attrs.data[i], "this declaration");
    return true;
}

/* Leaves the frames of this walk down to `base`. */
static void unwind(Walk *W, size_t base)
{
    while (W->frames.len > base) {
        Frame f = W->frames.data[--W->frames.len];
        leave(W, &f);
    }
}

/* A parent libclang never visited: an implicit expression (the copy of a
 * lambda's capture, whose DeclRefExpr libclang hands out as its child).
 * The frames still open are those whose extent holds the cursor; taking
 * it for a sibling's child would close a lambda's frame and let its
 * statements into the kernel's. */
static size_t enclosing_frame(Walk *W, CXCursor cur)
{
    Range r = oklc_cx_range(cur);
    size_t top = W->frames.len;
    while (top > W->base) {
        Range fr = oklc_cx_range(W->frames.data[top - 1].cur);
        if (r.begin == UINT32_MAX || fr.begin == UINT32_MAX ||
            (fr.begin <= r.begin && r.end <= fr.end))
            break;
        top--;
    }
    return top;
}

/* One cursor of the visit. libclang visits the AST in source order and
 * keeps its own work list (no C recursion per level for statements and
 * expressions); a cursor's parent tells which frames its siblings' and
 * cousins' subtrees have ended. */
static enum CXChildVisitResult step(CXCursor cur, CXCursor parent, CXClientData data)
{
    Walk *W = data;
    size_t top = W->frames.len;
    while (top > W->base && !clang_equalCursors(W->frames.data[top - 1].cur, parent))
        top--;
    bool in_frame = top > W->base;        /* the parent's frame is frames[top - 1] */
    if (!in_frame && !clang_equalCursors(parent, W->root))
        top = enclosing_frame(W, cur);
    unwind(W, top);
    Frame f = {.cur = cur, .bound = {UINT32_MAX, UINT32_MAX}, .end = UINT32_MAX,
               .last_end = UINT32_MAX, .child = in_frame};
    if (in_frame) {
        f.bound = W->frames.data[top - 1].bound;
        f.main_file = W->frames.data[top - 1].operands;
    }
    if (!enter(W, cur, parent, &f)) {
        leave(W, &f);
        return CXChildVisit_Continue;
    }
    vec_push(&W->c->arena, &W->frames, f);
    return CXChildVisit_Recurse;
}

void oklc_walk_children(Walk *W, CXCursor cur)
{
    if (W->nesting >= WALK_NESTING_MAX) {
        oklc_model_error(W->c, oklc_cx_range(cur).begin, "this is nested too deeply for oklc: "
                         "more than %d functions, lambdas or declarations inside each other",
                         WALK_NESTING_MAX);
        return;
    }
    size_t saved = W->base;
    CXCursor saved_root = W->root;
    W->base = W->frames.len;
    W->root = cur;
    W->nesting++;
    oklc_walk_visit(W, cur, step, W);
    unwind(W, W->base);
    W->nesting--;
    W->base = saved;
    W->root = saved_root;
}

void oklc_walk_subtree(Walk *W, CXCursor cur, CXCursor parent)
{
    Frame f = {.cur = cur, .bound = {UINT32_MAX, UINT32_MAX}, .end = UINT32_MAX,
               .last_end = UINT32_MAX};
    if (enter(W, cur, parent, &f))
        oklc_walk_children(W, cur);
    leave(W, &f);
}

/* ---- the model ------------------------------------------------------------------- */

Model *oklc_model_build(oklc_ctx *c, const Normalized *nz, CXTranslationUnit tu,
                        const ParseOptions *o)
{
    Walk W = {.c = c, .nz = nz, .o = o, .tu = tu};
    W.m = oklc_arena_alloc(&c->arena, sizeof *W.m);
    lex_text(&W);
    index_attrs(&W);
    CXCursor root = clang_getTranslationUnitCursor(tu);
    oklc_walk_children(&W, root);
    oklc_walk_barrier_calls_end(&W);
    /* what no construct took */
    for (size_t i = 0; i < nz->nattrs; i++)
        if (!W.claimed[i])
            oklc_walk_misplaced(&W, W.anchors[i], NULL);
    Model *m = W.m;
    m->kernels = W.kernels.data, m->nkernels = W.kernels.len;
    m->functions = W.functions.data, m->nfunctions = W.functions.len;
    m->lambdas = W.lambdas.data, m->nlambdas = W.lambdas.len;
    m->kernel_protos = W.kernel_protos.data, m->nkernel_protos = W.kernel_protos.len;
    m->calls = W.calls.data, m->ncalls = W.calls.len;
    m->records = W.records.data, m->nrecords = W.records.len;
    m->components = W.components.data, m->ncomponents = W.components.len;
    m->assigns = W.assigns.data, m->nassigns = W.assigns.len;
    m->scalars = W.scalars.data, m->nscalars = W.scalars.len;
    oklc_walk_sort_ops(&W);
    m->ops = W.ops.data, m->nops = W.ops.len;
    m->type_names = W.type_names.data, m->ntype_names = W.type_names.len;
    m->cxx = W.cxx.data, m->ncxx = W.cxx.len;
    m->uses_double = W.uses_double;
    m->uses_half = W.uses_half;
    m->globals = W.globals.data, m->nglobals = W.globals.len;
    m->typedefs = W.typedefs.data, m->ntypedefs = W.typedefs.len;
    m->fields = W.fields.data, m->nfields = W.fields.len;
    return m;
}
