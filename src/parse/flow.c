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
    Range r = oklc_cx_range(cur);
    if (r.end <= s->r.begin || r.begin >= s->r.end)
        return CXChildVisit_Continue;
    if (clang_getCursorKind(cur) == CXCursor_DeclRefExpr) {
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
    if (!W->kernel)
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

void oklc_walk_barrier(Walk *W, CXCursor cur, Attr *a)
{
    Barrier *b = oklc_arena_alloc(&W->c->arena, sizeof *b);
    b->attr = a;
    b->stmt = oklc_cx_range(cur);
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
}

