/*
 * writes.c - which uses of a variable may change it, and whether the
 * threads of a block agree on what they write.
 *
 * A variable declared between an @outer loop and its @inner loops is one
 * per thread on a GPU and one per block on a CPU: the two agree as long as
 * every thread holds the same value. So such a variable may be written
 * where the whole block runs (outside the @inner loops), or in an @inner
 * loop by a plain assignment of a value no thread sees differently, made
 * by every thread (not under a condition or a loop of its own, in @inner
 * loops as long as the block: on a GPU the threads past a shorter loop's
 * count skip it); any other write in an @inner loop needs @exclusive (one
 * per thread) or @shared.
 *
 * Uses are read from the normalized text around them: an assignment
 * (=, op=), ++/--, an address taken (&v), a reference parameter of a
 * function of the file. What is not recognised counts as a write where
 * that is the safe side.
 */
#include <ctype.h>
#include <string.h>

#include "sema.h"

typedef struct Text {
    const char *t;
    uint32_t    len;
} Text;

static uint32_t skip_blanks(Text s, uint32_t p)
{
    while (p < s.len && isspace((unsigned char)s.t[p]))
        p++;
    return p;
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

static uint32_t blanks_before(Text s, uint32_t p)
{
    while (p > 0 && isspace((unsigned char)s.t[p - 1]))
        p--;
    return p;
}

/* Past subscripts and member accesses: v[i].x->y */
static uint32_t past_selectors(Text s, uint32_t p)
{
    for (;;) {
        p = skip_blanks(s, p);
        if (p < s.len && s.t[p] == '[') {
            for (int depth = 0; p < s.len; p++) {
                depth += s.t[p] == '[' ? 1 : s.t[p] == ']' ? -1 : 0;
                if (!depth)
                    break;
            }
            p++;
        } else if (p < s.len && (s.t[p] == '.' || (s.t[p] == '-' && p + 1 < s.len &&
                                                    s.t[p + 1] == '>'))) {
            p = skip_blanks(s, p + (s.t[p] == '.' ? 1 : 2));
            while (p < s.len && ident_char(s.t[p]))
                p++;
        } else {
            return p;
        }
    }
}

/* The assignment operator at p ("=", "+=", "<<=", ...): its length, or 0. */
static uint32_t assign_op(Text s, uint32_t p)
{
    static const char *const ops[] = {"<<=", ">>=", "+=", "-=", "*=", "/=", "%=",
                                      "&=",  "|=",  "^=", "="};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        uint32_t n = (uint32_t)strlen(ops[i]);
        if (p + n <= s.len && !memcmp(s.t + p, ops[i], n) &&
            !(n == 1 && p + 1 < s.len && s.t[p + 1] == '='))
            return n;
    }
    return 0;
}

/* The operator before the use: ++, --, or a unary & (its address). */
static bool changed_before(Text s, uint32_t p)
{
    p = blanks_before(s, p);
    if (p >= 2 && (!memcmp(s.t + p - 2, "++", 2) || !memcmp(s.t + p - 2, "--", 2)))
        return true;
    if (p < 1 || s.t[p - 1] != '&' || (p >= 2 && s.t[p - 2] == '&'))
        return false;
    uint32_t q = p - 1;                  /* a & b is not an address */
    while (q > 0 && isspace((unsigned char)s.t[q - 1]))
        q--;
    return q == 0 || !(ident_char(s.t[q - 1]) || s.t[q - 1] == ')' || s.t[q - 1] == ']');
}

/* A whole argument of a call of the file's functions whose parameter is a
 * reference to something not const. */
static bool reference_argument(const Model *m, Text s, Range ref)
{
    for (size_t i = 0; i < m->ncalls; i++) {
        const Call *c = &m->calls[i];
        const Function *f = NULL;
        for (size_t j = 0; j < m->nfunctions && !f; j++)
            if (m->functions[j]->name_off == c->callee_off)
                f = m->functions[j];
        for (size_t a = 0; f && a < c->nargs && a < f->nparams; a++) {
            Range r = c->args[a];
            if (skip_blanks(s, r.begin) == ref.begin && past_selectors(s, ref.end) >= r.end &&
                f->params[a]->type.reference && !f->params[a]->type.element_const)
                return true;
        }
    }
    return false;
}

/* Whether use `ref` of variable v may change it; *plain: by "v = ...",
 * with *value the right side. Through a pointer (p[i] = x, p->f = x) the
 * memory it points to changes, not the pointer. */
static bool writes(const Model *m, Text s, const Var *v, Range ref, bool *plain, Range *value)
{
    uint32_t p = past_selectors(s, ref.end), after = skip_blanks(s, ref.end);
    uint32_t before = blanks_before(s, ref.begin);
    bool deref = before > 0 && s.t[before - 1] == '*';
    if (v->type.pointer && !v->type.array && (p != after || deref))
        return false;
    uint32_t op = p < s.len ? assign_op(s, p) : 0;
    *plain = op == 1 && p == after;
    if (op) {
        uint32_t e = p + op;
        for (int depth = 0; e < s.len; e++) {
            char ch = s.t[e];
            if (!depth && (ch == ';' || ch == ',' || ch == ')' || ch == '}'))
                break;
            depth += ch == '(' || ch == '[' || ch == '{' ? 1 : ch == ')' || ch == ']' ? -1 : 0;
        }
        *value = (Range){p + op, e};
        return true;
    }
    if (p + 1 < s.len && (!memcmp(s.t + p, "++", 2) || !memcmp(s.t + p, "--", 2)))
        return true;
    return changed_before(s, ref.begin) || reference_argument(m, s, ref);
}

/* Is a variable's value different in each thread of a block? */
static bool per_thread(const Var *v)
{
    if (v->exclusive || (v->typedef_var && v->typedef_var->exclusive))
        return true;
    for (const Loop *l = v->loop; l; l = l->parent)
        if (l->kind == LOOP_INNER)
            return true;
    return v->loop_iter && v->loop && v->loop->kind == LOOP_INNER;
}

static bool reads_per_thread(const Kernel *k, Range r)
{
    for (size_t i = 0; i < k->nlocals; i++)
        if (per_thread(k->locals[i]) && oklc_refers_in(k->locals[i], r))
            return true;
    return false;
}

const Stmt *oklc_sema_stmt_at(const Stmt *s, uint32_t at)
{
    for (bool deeper = true; deeper;) {
        deeper = false;
        for (size_t i = 0; i < s->nkids && !deeper; i++)
            if (oklc_in_range(s->kids[i]->range, at))
                s = s->kids[i], deeper = true;
    }
    return s;
}

/* A statement every thread of @inner loop l runs once: directly in its body. */
static bool run_by_every_thread(const Kernel *k, const Loop *l, uint32_t at)
{
    if (!k->root || !l->node)
        return false;
    const Stmt *s = oklc_sema_stmt_at(k->root, at);
    if (s->kind != ST_EXPR || !s->parent)
        return false;
    const Stmt *p = s->parent;
    if (p->kind == ST_COMPOUND)
        p = p->parent;
    return p == l->node;
}

/* Every thread of the block of `outer` runs @inner loop l: its count is
 * known and no @inner loop of the block on its axis has more. */
static bool covers_block(const Kernel *k, const Loop *outer, const Loop *l)
{
    if (!l->trips_known)
        return false;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *m = k->loops[i];
        if (m->kind == LOOP_INNER && m->axis == l->axis &&
            oklc_in_range(outer->stmt, m->stmt.begin) && (!m->trips_known || m->ntrips > l->ntrips))
            return false;
    }
    return true;
}

static bool every_thread_runs(const Kernel *k, const Loop *outer, const Loop *l)
{
    for (; l && l != outer; l = l->parent)
        if (l->kind == LOOP_INNER && !covers_block(k, outer, l))
            return false;
    return true;
}

/* The innermost @inner loop around offset `at` inside block loop `outer`. */
static const Loop *inner_at(const Kernel *k, const Loop *outer, uint32_t at)
{
    const Loop *found = NULL;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->kind == LOOP_INNER && oklc_in_range(l->stmt, at) &&
            oklc_in_range(outer->stmt, l->stmt.begin) && (!found || l->level > found->level))
            found = l;
    }
    return found;
}

/* ---- effects where the block runs as a whole --------------------------------------------- */

/* Does use `ref` of pointer v update what it points to from its value
 * (*p += x, p[i]++, ++p->n)? Not a plain store (every thread storing the
 * same value leaves what one store leaves), not the pointer itself. */
static bool updates_through(Text s, const Var *v, Range ref)
{
    if (!v->type.pointer && !v->type.array)
        return false;
    uint32_t p = past_selectors(s, ref.end), after = skip_blanks(s, ref.end);
    uint32_t before = blanks_before(s, ref.begin);
    bool deref = before > 0 && s.t[before - 1] == '*';
    if (p == after && !deref)
        return false;
    uint32_t pre = blanks_before(s, deref ? before - 1 : before);
    bool inc = pre >= 2 && (!memcmp(s.t + pre - 2, "++", 2) || !memcmp(s.t + pre - 2, "--", 2));
    return inc || (p < s.len && assign_op(s, p) > 1) ||
           (p + 1 < s.len && (!memcmp(s.t + p, "++", 2) || !memcmp(s.t + p, "--", 2)));
}

/* The innermost attributed loop around `at` is an @outer loop whose block
 * has @inner loops: code there runs once per block on a CPU, and once per
 * thread of the block on a GPU. */
static bool between_outer_and_inner(const Kernel *k, uint32_t at)
{
    const Loop *in = NULL;
    for (size_t i = 0; i < k->nloops; i++) {
        const Loop *l = k->loops[i];
        if (l->kind != LOOP_REGULAR && oklc_in_range(l->stmt, at) &&
            (!in || l->level > in->level))
            in = l;
    }
    if (!in || in->kind != LOOP_OUTER)
        return false;
    for (size_t i = 0; i < k->nloops; i++) {
        if (k->loops[i]->kind != LOOP_INNER)
            continue;
        for (const Loop *p = k->loops[i]->parent; p; p = p->parent)
            if (p == in)
                return true;
    }
    return false;
}

static bool in_atomic(const Kernel *k, uint32_t at)
{
    for (size_t i = 0; i < k->natomics; i++)
        if (oklc_in_range(k->atomics[i]->stmt, at))
            return true;
    return false;
}

static void block_effect(oklc_ctx *c, uint32_t at, const char *what)
{
    oklc_model_diag(c, DIAG_WARNING, at,
                    "%s between the @outer and the @inner loops runs once per block on the CPU "
                    "backends (serial, OpenMP) and once per thread of the block on the GPU "
                    "backends: OKL does not say how often; to run it once per block, put it "
                    "in an @inner loop under a condition on the thread (if (t == 0))", what);
}

void oklc_sema_block_effects(oklc_ctx *c, const Kernel *k)
{
    Text s = {c->norm->text, (uint32_t)c->norm->len};
    for (size_t i = 0; i < k->natomics; i++)
        if (between_outer_and_inner(k, k->atomics[i]->stmt.begin))
            block_effect(c, k->atomics[i]->attr->off, "this @atomic update");
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        for (size_t r = 0; r < v->nrefs; r++)
            if (updates_through(s, v, v->refs[r]) && !in_atomic(k, v->refs[r].begin) &&
                between_outer_and_inner(k, v->refs[r].begin))
                block_effect(c, v->refs[r].begin,
                             oklc_arena_printf(&c->arena, "this update of what '%s' points to",
                                               v->name));
    }
}

uint32_t oklc_sema_thread_write(oklc_ctx *c, const Model *m, const Kernel *k, const Var *v)
{
    Text s = {c->norm->text, (uint32_t)c->norm->len};
    for (size_t r = 0; r < v->nrefs; r++) {
        const Loop *in = inner_at(k, v->loop, v->refs[r].begin);
        bool plain;
        Range value = {0, 0};
        if (!in || !writes(m, s, v, v->refs[r], &plain, &value))
            continue;
        if (!plain || reads_per_thread(k, value) || oklc_refers_in(v, value) ||
            !run_by_every_thread(k, in, v->refs[r].begin) || !every_thread_runs(k, v->loop, in))
            return v->refs[r].begin;
    }
    return UINT32_MAX;
}

bool oklc_sema_writes(oklc_ctx *c, const Model *m, const Var *v, Range ref, bool *plain,
                      Range *value)
{
    Text s = {c->norm->text, (uint32_t)c->norm->len};
    Range r = {0, 0};
    *plain = false;
    bool w = writes(m, s, v, ref, plain, &r);
    if (value)
        *value = r;
    return w;
}

