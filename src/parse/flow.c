/*
 * flow.c - control flow around barriers: the conditions and jumps between
 * a barrier and its loop, so the checks can tell whether every thread of
 * a block reaches it.
 */
#include <string.h>

#include "walk.h"

/* Is a variable's value different in each thread of a block? */
static bool per_thread(const Var *v)
{
    if (!v)
        return false;
    if (v->exclusive)
        return true;
    for (const Loop *l = v->loop; l; l = l->parent)
        if (l->kind == LOOP_INNER)
            return true;
    return false;
}

typedef struct RefScan {
    Walk       *W;
    Range       r;
    const char *var;
} RefScan;

static enum CXChildVisitResult ref_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    RefScan *s = data;
    CXCursorKind k = clang_getCursorKind(cur);
    /* the body after the condition: its start says so (its extent would
     * cost the depth of while (c) while (c) ...) */
    if (oklc_cx_ends_in_body(k) && oklc_cx_begin(cur) >= s->r.end)
        return CXChildVisit_Continue;
    Range r = oklc_cx_range(cur);
    if (r.end <= s->r.begin || r.begin >= s->r.end)
        return CXChildVisit_Continue;
    if (k == CXCursor_DeclRefExpr) {
        Var *v = oklc_walk_referenced_var(s->W, cur);
        if (per_thread(v)) {
            s->var = v->name;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* The per-thread variable read in `r` under `stmt`, if any. */
static const char *thread_var_in(Walk *W, CXCursor stmt, Range r)
{
    RefScan s = {W, r, NULL};
    if (r.end > r.begin)
        clang_visitChildren(stmt, ref_visit, &s);
    return s.var;
}

/* The parenthesized condition after a keyword: if (...), while (...). */
Range oklc_walk_paren_after(Walk *W, uint32_t from, const char *kw)
{
    size_t k = tok_at(W, from);
    while (k < W->ntoks - 1 && !oklc_tok_eq(W->toks[k], kw))
        k++;
    while (k < W->ntoks - 1 && !oklc_tok_is_punct(W->toks[k], P_LPAREN))
        k++;
    if (k >= W->ntoks - 1)
        return (Range){from, from};
    size_t close = closing(W, k);
    return (Range){tok_end(W->toks[k]), W->toks[close]->loc.off};
}

void oklc_walk_push_ctl(Walk *W, CtlKind kind, CXCursor stmt, Range cond, Loop *inner)
{
    Ctl c = {kind, cond, W->kernel ? thread_var_in(W, stmt, cond) : NULL, inner, 0, NULL};
    vec_push(&W->c->arena, &W->ctl, c);
}

/* A thread-dependent condition between here and the innermost attributed
 * loop, or (from = true) anywhere above down to stack index `from`. */
static const Ctl *divergent(Walk *W)
{
    for (size_t i = W->ctl.len; i-- > 0;) {
        const Ctl *c = &W->ctl.data[i];
        if (c->kind == CTL_LOOP && c->inner)
            return NULL;
        if (c->thread_var)
            return c;
    }
    return NULL;
}

/* The construct a jump leaves: continue its loop, break its loop or
 * switch, return and goto the whole nest (the outermost attributed loop). */
static Ctl *jump_target(Walk *W, CXCursorKind k)
{
    Ctl *t = NULL;
    for (size_t i = W->ctl.len; i-- > 0;) {
        Ctl *c = &W->ctl.data[i];
        if (k == CXCursor_ContinueStmt && c->kind == CTL_LOOP)
            return c;
        if (k == CXCursor_BreakStmt && (c->kind == CTL_LOOP || c->kind == CTL_SWITCH))
            return c;
        if ((k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt) && c->kind == CTL_LOOP && c->inner)
            t = c;
    }
    return t;
}

/* return / break / continue / goto that only some threads take: every
 * barrier after it, inside the construct it leaves, is not reached by
 * all the threads of the block. */
void oklc_walk_early_exit(Walk *W, CXCursor cur, CXCursorKind k)
{
    if (!W->kernel || W->in_lambda)      /* a lambda's jumps are its own */
        return;
    Ctl *target = jump_target(W, k);
    if (!target || target->exit_off)
        return;
    for (Ctl *c = &W->ctl.data[W->ctl.len - 1]; c > target; c--)
        if (c->thread_var) {
            target->exit_off = oklc_cx_range(cur).begin;
            target->exit_what = k == CXCursor_ReturnStmt ? "return"
                                : k == CXCursor_BreakStmt ? "break"
                                : k == CXCursor_GotoStmt ? "goto" : "continue";
            return;
        }
}

static Barrier *new_barrier(Walk *W, Attr *a, Range stmt)
{
    Barrier *b = oklc_arena_alloc(&W->c->arena, sizeof *b);
    b->attr = a;
    b->stmt = stmt;
    b->loop = W->loop;
    b->kind = BARRIER_LOCAL;
    if (a->nargs) {
        const char *s = a->args[0].text;
        b->kind = !strcmp(s, "\"warp\"") ? BARRIER_WARP : !strcmp(s, "\"global\"") ? BARRIER_GLOBAL
                                                                                   : BARRIER_LOCAL;
    }
    const Ctl *d = divergent(W);
    if (d) {
        b->cond = d->cond;
        b->cond_var = d->thread_var;
    } else {
        for (size_t i = 0; i < W->ctl.len; i++)
            if (W->ctl.data[i].exit_off) {
                b->cond = (Range){W->ctl.data[i].exit_off, W->ctl.data[i].exit_off};
                b->cond_var = W->ctl.data[i].exit_what;
                break;
            }
    }
    vec_push(&W->c->arena, &W->barriers, b);
    return b;
}

void oklc_walk_barrier(Walk *W, CXCursor cur, Attr *a)
{
    new_barrier(W, a, oklc_cx_range(cur));
}

/* ---- barriers of functions ----------------------------------------------------------
 * A function whose last statement is a @barrier (a method that copies to
 * @shared memory and then synchronizes) has the barrier after each call
 * of it instead, the call being a statement of a kernel: the same
 * synchronization, which every backend then treats as a barrier the
 * kernel holds (a CPU splits the @inner loop there). */

void oklc_walk_function_barrier(Walk *W, CXCursor cur, Attr *a)
{
    Function *f = W->function;
    size_t t = tok_at(W, oklc_cx_range(cur).end);
    bool last = t < W->ntoks && oklc_tok_is_punct(W->toks[t], P_RBRACE) &&
                W->toks[t]->loc.off + 1 == f->decl.end;
    if (last && !f->barrier) {
        f->barrier = a;
        vec_push(&W->c->arena, &W->barrier_fns, f);
    } else if (!f->inner_barrier) {
        f->inner_barrier = a;
    }
}

static uint32_t callee_off(CXCursor call)
{
    CXCursor callee = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(callee))
        return UINT32_MAX;
    CXCursor def = clang_getCursorDefinition(callee);
    return oklc_cx_offset(clang_getCursorLocation(clang_Cursor_isNull(def) ? callee : def));
}

static Function *barrier_fn(Walk *W, uint32_t off)
{
    for (size_t i = 0; i < W->barrier_fns.len; i++)
        if (W->barrier_fns.data[i]->name_off == off)
            return W->barrier_fns.data[i];
    return NULL;
}

void oklc_walk_barrier_call(Walk *W, CXCursor cur)
{
    Range r = oklc_cx_range(cur);
    uint32_t off = callee_off(cur);
    if (off == UINT32_MAX || r.begin == UINT32_MAX)
        return;
    Function *f = barrier_fn(W, off);
    if (!f) {
        if (off > r.begin)      /* known once its definition is walked */
            vec_push(&W->c->arena, &W->later_calls, ((Call){.range = r, .callee_off = off}));
        return;
    }
    Stmt *s = W->stmt;
    Range whole = oklc_walk_with_semicolon(W, r);
    if (!W->kernel || W->in_lambda || !s || s->kind != ST_EXPR || s->range.begin != whole.begin ||
        s->range.end != whole.end) {
        oklc_model_error(W->c, r.begin, "'%s' ends with a @barrier: call it as a statement of "
                         "its own in a kernel, which the barrier then follows", f->name);
        return;
    }
    Attr *a = oklc_arena_alloc(&W->c->arena, sizeof *a);
    *a = *f->barrier;          /* its arguments; the place is the call's */
    a->off = r.begin;
    a->end = r.end;
    new_barrier(W, a, (Range){s->range.end, s->range.end})->after_call = true;
}

void oklc_walk_barrier_calls_end(Walk *W)
{
    for (size_t i = 0; i < W->later_calls.len; i++) {
        const Function *f = barrier_fn(W, W->later_calls.data[i].callee_off);
        if (f)
            oklc_model_error(W->c, W->later_calls.data[i].range.begin,
                             "'%s' ends with a @barrier, which must follow this call: define "
                             "the function before the kernel that calls it", f->name);
    }
}
