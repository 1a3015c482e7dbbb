/*
 * flow.c - a block as the tree its threads run through, and the ways from
 * a barrier to an access that pass no other barrier.
 *
 * A block is an @outer loop whose body holds @inner loops. Its statements
 * become sequences (F_SEQ), branches (F_IF: then, else), plain loops
 * (F_LOOP: for, while, do), the threads (F_INNER: a top @inner loop, with
 * the @inner loops inside it), barriers and the accesses of @shared
 * memory, in the order they run. Every thread of a block passes the same
 * barriers (the checks see to that), so between two barriers each thread
 * runs from the first to the second along its own way: two accesses are in
 * one interval when the same barrier (or the block's start) reaches both.
 * A way goes forward in a sequence, skips what it may skip (a branch, a
 * loop of no iteration) and may go round a loop (its next iteration);
 * what it cannot skip is a node every way through which passes a barrier
 * (`must`).
 *
 * A warp's barrier is a barrier of the tree, which races.c counts when it
 * looks for races, not when it decides which barriers a block needs (a
 * block's threads span several warps).
 *
 * A block is refused (the rule's barriers stay) where this tree would not
 * tell the truth: a jump out of a part that holds a barrier (continue,
 * break, return, goto), a switch around a barrier, a @shared array used
 * otherwise than element by element (its address, a pointer to it, a row
 * of it) or outside the @inner loops, a use the model does not show (in a
 * class's operator).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "../sema/sema.h"

typedef struct Build {
    oklc_ctx     *c;
    const Model  *m;
    Block        *b;
    VEC(Flow *)   tops;       /* the F_INNER of each top @inner loop */
} Build;

static void refuse(Build *B, uint32_t at, const char *why)
{
    if (!B->b->refused) {
        B->b->refused = why;
        B->b->refused_at = at;
    }
}

static Flow *flow(Build *B, FlowKind kind, Flow *parent, const Stmt *st)
{
    Flow *f = oklc_arena_alloc(&B->c->arena, sizeof *f);
    f->kind = kind;
    f->st = st;
    f->trips = -1;
    if (parent) {
        f->parent = parent;
        f->index = (int)parent->nkids;
        f->depth = parent->depth + 1;
        parent->kids = oklc_arena_append(&B->c->arena, parent->kids, parent->nkids,
                                         sizeof(Flow *));
        parent->kids[parent->nkids++] = f;
    }
    return f;
}

/* ---- the accesses of @shared memory ------------------------------------------------------------ */

static bool is_shared(const Var *v)
{
    return v->shared || (v->typedef_var && v->typedef_var->shared);
}

static uint32_t blanks(const char *t, uint32_t p, uint32_t n)
{
    while (p < n && isspace((unsigned char)t[p]))
        p++;
    return p;
}

/* Is `at` what an @atomic statement updates (x of x += v), or in an
 * @atomic block? */
static bool in_atomic(const Kernel *k, uint32_t at)
{
    for (size_t i = 0; i < k->natomics; i++) {
        const Atomic *a = k->atomics[i];
        if (oklc_in_range(a->block || a->lhs.end <= a->lhs.begin ? a->stmt : a->lhs, at))
            return true;
    }
    return false;
}

int oklc_subscripts(const oklc_ctx *c, uint32_t p, uint32_t end, Range *subs, int most,
                    uint32_t *after)
{
    const char *t = c->norm->text;
    int k = 0;
    p = blanks(t, p, end);
    while (p < end && t[p] == '[' && k < most) {
        uint32_t q = p;
        for (int depth = 0; q < end; q++) {
            depth += t[q] == '[' || t[q] == '(' ? 1 : t[q] == ']' || t[q] == ')' ? -1 : 0;
            if (!depth)
                break;
        }
        subs[k++] = (Range){p + 1, q};
        p = blanks(t, q + 1, end);
    }
    *after = p;
    return k;
}

/* Use r of v: its subscripts (a.nsubs), and where the text goes on
 * after them; false when it is not one element (fewer subscripts, &v[i]). */
static bool element_use(Build *B, const Var *v, Range r, Access *a, uint32_t *after)
{
    const char *t = B->c->norm->text;
    uint32_t p;
    *a = (Access){.var = v, .off = r.begin};
    a->nsubs = oklc_subscripts(B->c, r.end, (uint32_t)B->c->norm->len, a->subs,
                               (int)OKLC_COUNTOF(a->subs), &p);
    int dims = v->type.array_dims > 0 ? v->type.array_dims : 1;
    uint32_t before = r.begin;
    while (before > 0 && isspace((unsigned char)t[before - 1]))
        before--;
    *after = p;
    return a->nsubs == dims && !(before > 0 && t[before - 1] == '&' &&
                                 !(before > 1 && t[before - 2] == '&'));
}

/* `= v` (not ==) at p */
static bool assigns(Build *B, uint32_t p)
{
    const char *t = B->c->norm->text;
    uint32_t n = (uint32_t)B->c->norm->len;
    return p < n && t[p] == '=' && !(p + 1 < n && t[p + 1] == '=');
}

/* Use r of @shared v: its subscripts and what it does, or a refusal. */
static void access_of(Build *B, const Var *v, Range r)
{
    const char *t = B->c->norm->text;
    uint32_t n = (uint32_t)B->c->norm->len, p;
    Access a;
    if (!element_use(B, v, r, &a, &p)) {
        refuse(B, r.begin, oklc_arena_printf(&B->c->arena, "'%s' is used here other than "
                                             "element by element", v->name));
        return;
    }
    while (p < n && (t[p] == '.' || (t[p] == '-' && p + 1 < n && t[p + 1] == '>'))) {
        p = blanks(t, p + (t[p] == '.' ? 1 : 2), n);
        while (p < n && (isalnum((unsigned char)t[p]) || t[p] == '_'))
            p++;
        p = blanks(t, p, n);
    }
    bool assign = assigns(B, p);
    bool plain;
    Range value;
    bool changes = oklc_sema_writes(B->c, B->m, v, r, &plain, &value);
    a.write = assign || changes;
    a.read = !assign;
    a.value = assign ? value : (Range){0, 0};
    a.atomic = in_atomic(B->b->k, r.begin);
    vec_push(&B->c->arena, &B->b->acc, a);
}

/* Does the text name v in r more often than the model's uses (a use
 * inside what Clang builds implicitly, an operator of a class)? Then
 * what the model says of v is not all there is. */
static bool unseen_uses(Build *B, const Var *v, Range r)
{
    const char *t = B->c->norm->text;
    size_t n = strlen(v->name), seen = 0, named = 0;
    for (size_t i = 0; i < v->nrefs; i++)
        seen += oklc_in_range(r, v->refs[i].begin);
    for (uint32_t p = r.begin; p + n <= r.end; p++) {
        if (memcmp(t + p, v->name, n) || (p > 0 && (isalnum((unsigned char)t[p - 1]) ||
                                                    t[p - 1] == '_' || t[p - 1] == '.')) ||
            isalnum((unsigned char)t[p + n]) || t[p + n] == '_')
            continue;
        uint32_t q = p;
        while (q > 0 && isspace((unsigned char)t[q - 1]))
            q--;
        named += !(q > 1 && t[q - 1] == '>' && t[q - 2] == '-');
    }
    return named > seen;
}

/* The elements of the kernel's arrays (pointer parameters) the block
 * writes, but by @atomic: whether two threads or blocks write one
 * (races.c). Uses that are not one element are left out. */
static void collect_global_writes(Build *B)
{
    const Kernel *k = B->b->k;
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        if (!v->type.pointer || v->type.element_const)
            continue;
        for (size_t r = 0; r < v->nrefs; r++) {
            Access a;
            uint32_t after;
            bool plain;
            Range value;
            if (!oklc_in_range(B->b->outer->stmt, v->refs[r].begin) ||
                !element_use(B, v, v->refs[r], &a, &after) || in_atomic(k, v->refs[r].begin) ||
                !(assigns(B, after) ||
                  oklc_sema_writes(B->c, B->m, v, v->refs[r], &plain, &value)))
                continue;
            a.write = true;
            vec_push(&B->c->arena, &B->b->writes, a);
        }
    }
}

/* The deepest node of f's tree whose statement holds off. */
static Flow *deepest(Flow *f, uint32_t off)
{
    for (;;) {
        Flow *in = NULL;
        for (size_t i = 0; i < f->nkids && !in; i++) {
            Flow *k = f->kids[i];
            if (k->kind != F_ACCESS && k->kind != F_BARRIER && k->st &&
                oklc_in_range(k->st->range, off))
                in = k;
        }
        if (!in)
            return f;
        f = in;
    }
}

/* Each global write a leaf of its own (known to it, not to the tree: the
 * barriers' ways do not see it); one in a condition is left out. */
static void place_writes(Build *B)
{
    Block *b = B->b;
    size_t kept = 0;
    for (size_t i = 0; i < b->writes.len; i++) {
        Flow *p = deepest(b->root, b->writes.data[i].off);
        if (p->kind == F_IF)
            continue;
        Flow *f = oklc_arena_alloc(&B->c->arena, sizeof *f);
        *f = (Flow){.kind = F_ACCESS, .parent = p, .index = -1, .depth = p->depth + 1,
                    .st = p->st, .id = 1000000 + (int)kept};
        b->writes.data[kept] = b->writes.data[i];
        b->writes.data[kept++].at = f;
    }
    b->writes.len = kept;
}

static void collect_accesses(Build *B)
{
    const Kernel *k = B->b->k;
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if (!is_shared(v) || !oklc_in_range(B->b->outer->stmt, v->name_off))
            continue;
        if (unseen_uses(B, v, (Range){v->declarator_end, B->b->outer->stmt.end}))
            refuse(B, v->name_off, oklc_arena_printf(&B->c->arena, "some uses of '%s' are "
                                                     "not in the model (an operator of a "
                                                     "class, an implicit conversion)", v->name));
        for (size_t r = 0; r < v->nrefs; r++)
            if (v->refs[r].begin != v->name_off)
                access_of(B, v, v->refs[r]);
    }
}

static int by_offset(const void *x, const void *y)
{
    const Access *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* ---- the tree -------------------------------------------------------------------------------- */

static bool in_kids(const Stmt *s, uint32_t off)
{
    for (size_t i = 0; i < s->nkids; i++)
        if (oklc_in_range(s->kids[i]->range, off))
            return true;
    return false;
}

/* The accesses of s's own text (not its kids'): leaves of `into`. */
static void own_accesses(Build *B, const Stmt *s, Flow *into)
{
    Block *b = B->b;
    size_t lo = 0, hi = b->acc.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->acc.data[mid].off < s->range.begin)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < b->acc.len && b->acc.data[i].off < s->range.end; i++)
        if (!in_kids(s, b->acc.data[i].off) && !b->acc.data[i].at) {
            Flow *f = flow(B, F_ACCESS, into, s);
            f->id = (int)i;
            b->acc.data[i].at = f;
        }
}

static void barrier_leaf(Build *B, Flow *into, const Stmt *s)
{
    Flow *f = flow(B, F_BARRIER, into, s);
    f->id = (int)B->b->bars.len;
    FlowBarrier fb = {f, s->barrier, NULL, true, s->barrier->after_call,
                      s->barrier->kind == BARRIER_WARP};
    vec_push(&B->c->arena, &B->b->bars, fb);
    if (s->barrier->cond_var)
        for (Flow *p = into; p && p->kind != F_INNER; p = p->parent)
            p->forced = true;
}

/* Does a jump in s leave a part that holds a barrier? */
static void jumps(Build *B, const Stmt *s)
{
    for (size_t i = 0; i < s->nkids; i++)
        jumps(B, s->kids[i]);
    if (s->kind != ST_BREAK && s->kind != ST_CONTINUE && s->kind != ST_RETURN &&
        s->kind != ST_GOTO)
        return;
    const Stmt *p = s->parent;
    while (p && !(s->kind != ST_RETURN && s->kind != ST_GOTO &&
                  (p->kind == ST_FOR || p->kind == ST_WHILE || p->kind == ST_DO ||
                   (s->kind == ST_BREAK && p->kind == ST_SWITCH))) &&
           !(p->kind == ST_FOR && p->loop && p->loop->kind == LOOP_INNER))
        p = p->parent;
    if (!p || p->has_barrier || s->kind == ST_GOTO)
        refuse(B, s->range.begin, "a jump may pass over a barrier");
}

static void tree(Build *B, const Stmt *s, Flow *into);

static void kids_into(Build *B, const Stmt *s, Flow *into)
{
    for (size_t i = 0; i < s->nkids; i++)
        tree(B, s->kids[i], into);
}

static void tree(Build *B, const Stmt *s, Flow *into)
{
    Flow *seq = flow(B, F_SEQ, into, s);
    switch (s->kind) {
    case ST_NULL:
        if (s->barrier)
            barrier_leaf(B, seq, s);
        break;
    case ST_IF: {
        own_accesses(B, s, seq);
        Flow *f = flow(B, F_IF, seq, s);
        kids_into(B, s, f);
        return;
    }
    case ST_FOR: case ST_WHILE: case ST_DO: {
        bool inner = s->loop && s->loop->kind == LOOP_INNER;
        Flow *f = flow(B, inner ? F_INNER : F_LOOP, seq, s);
        Flow *body = flow(B, F_SEQ, f, s);
        own_accesses(B, s, body);
        if (inner) {
            f->loop = s->loop;
            const Loop *top = s->loop;
            for (; top->kind == LOOP_INNER; top = top->parent) {
                B->b->axes |= 1 << top->axis;
                if (!top->parent || top->parent->kind != LOOP_INNER)
                    break;
            }
            if (top->parent == B->b->outer)
                vec_push(&B->c->arena, &B->tops, f);
        } else {
            f->loop = s->loop ? NULL : s->plain;   /* an attributed regular level: opaque */
            f->trips = s->trips > 0 ? s->trips
                       : f->loop && f->loop->analyzed && f->loop->trips_known ? f->loop->ntrips
                                                                             : -1;
            f->id = (int)B->b->loops.len;
            vec_push(&B->c->arena, &B->b->loops, f);
        }
        kids_into(B, s, body);
        return;
    }
    case ST_SWITCH:
        if (s->has_barrier)
            refuse(B, s->range.begin, "a switch holds a barrier");
        break;
    default:
        break;
    }
    own_accesses(B, s, seq);
    kids_into(B, s, seq);
}

/* ---- blocks ---------------------------------------------------------------------------------- */

static bool has_inner_kid(const Loop *o)
{
    for (size_t i = 0; i < o->nkids; i++)
        if (o->kids[i]->kind == LOOP_INNER)
            return true;
    return false;
}

static Block *block(oklc_ctx *c, const Model *m, Kernel *k, Loop *o)
{
    Block *b = oklc_arena_alloc(&c->arena, sizeof *b);
    b->k = k;
    b->outer = o;
    Build B = {c, m, b, {0}};
    collect_accesses(&B);
    collect_global_writes(&B);
    if (b->acc.len)
        qsort(b->acc.data, b->acc.len, sizeof *b->acc.data, by_offset);
    const Stmt *s = o->node;
    if (!s) {
        refuse(&B, o->stmt.begin, "the loop is not in the statement tree");
        return b;
    }
    jumps(&B, s);
    b->root = flow(&B, F_SEQ, NULL, s);
    if (o->tile_other && o->tile_other->kind == LOOP_INNER) {
        tree(&B, s, b->root);       /* @tile(n, @outer, @inner): the threads at once */
    } else if (o->tile_part == 1 && o->tile_other->kind == LOOP_REGULAR) {
        Flow *tiles = flow(&B, F_LOOP, b->root, s);   /* @tile(n, @outer): a loop in each */
        tiles->id = (int)b->loops.len;
        vec_push(&c->arena, &b->loops, tiles);
        kids_into(&B, s, flow(&B, F_SEQ, tiles, s));
    } else {
        kids_into(&B, s, b->root);
    }
    for (size_t i = 0; i < b->acc.len && !b->refused; i++) {
        const Flow *f = b->acc.data[i].at;
        while (f && f->kind != F_INNER)
            f = f->parent;
        if (!f)
            refuse(&B, b->acc.data[i].off,
                   oklc_arena_printf(&c->arena, "'%s' is used here outside the @inner loops",
                                     b->acc.data[i].var->name));
    }
    /* where a GPU may wait: after each top @inner loop */
    for (size_t i = 0; i < B.tops.len; i++) {
        Flow *f = B.tops.data[i];
        Loop *l = (Loop *)f->loop;
        while (l->parent && l->parent->kind == LOOP_INNER)
            l = l->parent;
        if (!f || !f->parent || f->parent->kind != F_SEQ)
            continue;
        Flow *seq = f->parent->parent;        /* the statement's node in its sequence */
        if (!seq || seq->kind != F_SEQ)
            continue;
        Flow *stmt = f->parent;
        Flow *after = oklc_arena_alloc(&c->arena, sizeof *after);
        after->kind = F_BARRIER;
        after->parent = seq;
        after->depth = seq->depth + 1;
        after->id = (int)b->bars.len;
        seq->kids = oklc_arena_append(&c->arena, seq->kids, seq->nkids, sizeof(Flow *));
        memmove(seq->kids + stmt->index + 2, seq->kids + stmt->index + 1,
                (seq->nkids - (size_t)stmt->index - 1) * sizeof(Flow *));
        seq->kids[stmt->index + 1] = after;
        seq->nkids++;
        for (size_t j = (size_t)stmt->index + 1; j < seq->nkids; j++)
            seq->kids[j]->index = (int)j;
        FlowBarrier fb = {after, NULL, l, !l->nobarrier, false, false};
        vec_push(&c->arena, &b->bars, fb);
    }
    place_writes(&B);
    return b;
}

Block **oklc_flow_blocks(oklc_ctx *c, const Model *m, Kernel *k, size_t *n)
{
    VEC(Block *) out = {0};
    for (size_t i = 0; i < k->nloops; i++)
        if (k->loops[i]->kind == LOOP_OUTER && has_inner_kid(k->loops[i]))
            vec_push(&c->arena, &out, block(c, m, k, k->loops[i]));
    *n = out.len;
    return out.data;
}

/* ---- ways between barriers and accesses ------------------------------------------------------ */

static bool must(Block *b, Flow *f)
{
    bool any = false;
    int count = 0;
    for (size_t i = 0; i < f->nkids; i++) {
        f->kids[i]->musts_before = count;
        bool m = must(b, f->kids[i]);
        any |= m;
        count += m;
    }
    f->musts_in = count;
    switch (f->kind) {
    case F_BARRIER: f->must = b->bars.data[f->id].on; break;
    case F_SEQ: f->must = any; break;
    case F_IF:
        f->must = f->forced ? any : f->nkids == 2 && f->kids[0]->must && f->kids[1]->must;
        break;
    case F_LOOP: f->must = (f->forced || f->trips > 0) && any; break;
    case F_INNER: f->must = any; break;
    case F_ACCESS: f->must = false; break;
    }
    return f->must;
}

void oklc_flow_must(Block *b)
{
    if (b->root)
        must(b, b->root);
}

bool oklc_flow_within(const Flow *f, const Flow *g)
{
    while (f && f->depth > g->depth)
        f = f->parent;
    return f == g;
}

/* From f up to its ancestor n, nothing after (before) the way in a
 * sequence must pass a barrier. */
static bool free_side(const Flow *f, const Flow *n, bool after)
{
    for (; f && f != n; f = f->parent) {
        const Flow *p = f->parent;
        if (p && p->kind == F_SEQ &&
            (after ? p->musts_in - f->musts_before - f->must : f->musts_before) > 0)
            return false;
    }
    return true;
}

static const Flow *lca(const Flow *a, const Flow *b)
{
    while (a->depth > b->depth)
        a = a->parent;
    while (b->depth > a->depth)
        b = b->parent;
    while (a != b)
        a = a->parent, b = b->parent;
    return a;
}

/* The child of ancestor a on the way down to f. */
static const Flow *child_towards(const Flow *f, const Flow *a)
{
    while (f->parent != a)
        f = f->parent;
    return f;
}

bool oklc_flow_reach(const Flow *x, const Flow *e, const Flow **backs, int *nways)
{
    *nways = 0;
    if (!x) {
        if (free_side(e, NULL, false))         /* up to the root */
            backs[(*nways)++] = NULL;
        return *nways > 0;
    }
    const Flow *a = lca(x, e);
    if (a->kind == F_SEQ && a != x && a != e) {
        const Flow *cx = child_towards(x, a), *ce = child_towards(e, a);
        bool between = ce->musts_before - cx->musts_before - cx->must == 0;
        if (cx->index < ce->index && between && free_side(x, cx, true) && free_side(e, ce, false))
            backs[(*nways)++] = NULL;
    }
    for (const Flow *l = a; l; l = l->parent)
        if (l->kind == F_LOOP && free_side(x, l->kids[0], true) && free_side(e, l->kids[0], false))
            backs[(*nways)++] = l;
    return *nways > 0;
}

/* What way `back` to e does with loop l around x: goes round it, leaves
 * it, or stays in its iteration. */
typedef enum Turn { TURN_STAY, TURN_ROUND, TURN_LEAVE } Turn;

static Turn turn(const Flow *l, const Flow *e, const Flow *back)
{
    if (back == l)
        return TURN_ROUND;
    if (!oklc_flow_within(e, l) || (back && oklc_flow_within(l, back)))
        return TURN_LEAVE;
    return TURN_STAY;
}

bool oklc_flow_together(const Flow *x, const Flow *e1, const Flow *b1, const Flow *e2,
                        const Flow *b2)
{
    for (const Flow *l = x ? x->parent : NULL; l; l = l->parent) {
        if (l->kind != F_LOOP)
            continue;
        Turn t1 = turn(l, e1, b1), t2 = turn(l, e2, b2);
        if ((t1 == TURN_ROUND && t2 == TURN_LEAVE) || (t1 == TURN_LEAVE && t2 == TURN_ROUND))
            return false;
    }
    return true;
}

Rel oklc_flow_rel(const Flow *x, const Flow *back, const Flow *l)
{
    bool first = l->kids[0]->must;
    if (!x || !oklc_flow_within(x, l))
        return first ? REL_FIRST : REL_ANY;       /* entered afresh */
    if (!back || (l != back && oklc_flow_within(back, l)))
        return REL_SAME;
    if (l == back)
        return first ? REL_NEXT : REL_LATER;
    return first ? REL_FIRST : REL_ANY;          /* inside the loop gone round: left */
}

/* ---- the barriers the GPU backends add -------------------------------------------------- */

/* Has the block @shared memory: declared in its @outer loop or in one
 * around it (a 2D grid's outer(1) loop declares it for every block)? */
static bool block_has_shared(const Kernel *k, const Loop *outer)
{
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        bool shared = v->shared || (v->typedef_var && v->typedef_var->shared);
        for (const Loop *o = outer; shared && o; o = o->parent)
            if (v->loop == o)
                return true;
    }
    return false;
}

/* Is the statement inside a regular loop of the block (so that @inner
 * loops come after it again)? The loop inside the tiles of a
 * @tile(N, @outer) is one too: oklc writes it, the rules are the same. */
static bool in_regular_loop(const Stmt *st, const Loop *outer)
{
    if (outer->tile_part == 1 && outer->tile_other && outer->tile_other->kind == LOOP_REGULAR)
        return true;
    for (const Stmt *p = st->parent; p && p != outer->node; p = p->parent)
        if ((p->kind == ST_FOR && !p->loop) || p->kind == ST_WHILE || p->kind == ST_DO)
            return true;
    return false;
}

/* A block barrier the user wrote as statement s (not a warp's). */
static bool is_block_barrier(const Stmt *s)
{
    return s && s->kind == ST_NULL && s->barrier && !s->barrier->after_call &&
           s->barrier->kind != BARRIER_WARP;
}

/* Does a barrier of the user's end the loop's body, or follow the loop?
 * Then the loop needs none of its own. */
static bool barrier_at_end(const Loop *l)
{
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    if (body->kind == ST_COMPOUND && body->nkids && is_block_barrier(body->kids[body->nkids - 1]))
        return true;
    const Stmt *p = l->node->parent;
    for (size_t i = 0; p && i + 1 < p->nkids; i++)
        if (p->kids[i] == l->node)
            return is_block_barrier(p->kids[i + 1]);
    return false;
}

/* Between the @inner loops of a block with @shared memory, every thread
 * waits until all have written: a barrier after each @inner loop whose
 * accesses the analysis found another thread's later ones touch
 * (races.c), or by the rule where it could not tell: after each @inner
 * loop that another one follows (unless @nobarrier, or one of the user's
 * is there). */
bool oklc_implicit_barrier(const Kernel *k, const Loop *l)
{
    if (l->kind != LOOP_INNER || !l->parent || l->parent->kind != LOOP_OUTER ||
        l->nobarrier || !l->node || !l->node->nkids || !block_has_shared(k, l->parent) ||
        barrier_at_end(l) || l->barrier_after == BARRIER_UNNEEDED)
        return false;
    bool later = l->barrier_after == BARRIER_NEEDED || in_regular_loop(l->node, l->parent);
    for (size_t j = 0; j < k->nloops && !later; j++) {
        const Loop *m = k->loops[j];
        later = m != l && m->kind == LOOP_INNER && m->parent == l->parent &&
                m->stmt.begin >= l->stmt.end;
    }
    return later;
}
