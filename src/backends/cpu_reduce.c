/*
 * cpu_reduce.c - with OpenMP, @atomic updates of a kernel argument's
 * elements as a reduction: each thread updates its own copy of the
 * elements and the copies are combined into the argument once, when the
 * nest ends (OpenMP's reduction clause on an array section). Otherwise
 * every block pays one locked update per element, and the threads take
 * the argument's cache lines from each other.
 *
 * Takes a top-level @outer loop's nest (OpenMP only); gives the
 * reduction clauses for its pragma and the test to put before it, and
 * marks the updates, which the driver's atomics then leave plain.
 *
 * The usual end of a block histogram or block sum qualifies:
 *
 *   for (int t = 0; t < 256; ++t; @inner)
 *     @atomic hist[t] += s_h[t];
 *
 * becomes `hist[t] += s_h[t];` under `#pragma omp parallel for
 * reduction(+ : hist[0:256])`. The conditions, each needed for the same
 * result:
 *  - the update is +=, -=, ++, --, *=, &=, |= or ^= (combined with +, +,
 *    +, +, *, &, |, ^) of `arg[i]`, arg a kernel argument and i the
 *    iterator of an enclosing @inner loop counting up by one from a number
 *    over a constant count: the section arg[start:count];
 *  - every use of arg in the nest is such an update, of the same section
 *    with the same combination: nothing reads arg midway;
 *  - every iteration of the nest's @outer loops makes the update for every
 *    i: between the @outer loop and the update only braces and @inner
 *    loops of constant counts, and no return, break, continue or goto in
 *    the nest. The combination writes each element of the section, so the
 *    kernel must write each one too; a nest that runs no iteration is
 *    skipped by an `if` on the @outer loops' first tests (which must read
 *    nothing the nest declares, and call nothing);
 *  - the section is at most 64 KiB: each thread holds a copy.
 * Floating-point values are combined in another order, which the atomics
 * allowed already.
 *
 * An update of one element that every thread of every block makes alike
 * (a sum of all of them: `@atomic *sum += x[i]`, `@atomic out[2 * n] +=
 * v`) goes to a variable of the nest instead, which OpenMP reduces:
 *
 *   __typeof__(*sum) _occa_acc0 = 0;
 *   #pragma omp parallel for reduction(+ : _occa_acc0)
 *   for (...) { ... _occa_acc0 += x[i]; ... }
 *   if (_occa_acc0 != 0) { #pragma omp atomic update / *sum += _occa_acc0; }
 *
 * With every thread updating it with `omp atomic`, the element's cache
 * line moves between the cores at each update: a float sum ran 18 times
 * slower than the serial build on one thread and 80 times on two (a
 * float's atomic add is a compare-and-swap loop). Conditions: the element
 * is `arg[K]` or `*arg`, K made of numbers and arguments passed by value
 * that nothing in the kernel changes, joined by operators (the same
 * element wherever it is evaluated, after the nest too); the combination
 * as above; every use of arg in the nest is such an update with the same
 * combination (no read or store of its elements midway; updates of other
 * elements, or of the same one at another place, each have a variable).
 * The element is touched after the nest only if the updates changed the
 * variable: an update made under a condition that never held touches
 * nothing (an argument not passed, an index out of range). A return or a
 * continue in the nest changes nothing: the variable has the updates made.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

enum { MAX_COPY = 64 * 1024 };

typedef struct Reduction {
    const Var  *arg;
    char        op;           /* '+', '*', '&', '|' or '^' */
    long long   start;
    int64_t     count;
} Reduction;

static char combination(AtomicOp op)
{
    switch (op) {
    case AT_ADD: case AT_SUB: case AT_INC: case AT_DEC: return '+';
    case AT_MUL: return '*';
    case AT_AND: return '&';
    case AT_OR: return '|';
    case AT_XOR: return '^';
    default: return 0;
    }
}

/* The @inner loop whose iterator is the whole subscript of `arg[i]` in
 * the update's target, or NULL. */
static const Loop *indexing_loop(Cpu *C, const Atomic *at)
{
    const char *t = C->E->nz->text;
    uint32_t p = oklc_cpu_skip_blanks(t, at->lhs.begin, at->lhs.end);
    if (!oklc_cpu_refers_at(at->target, p))
        return NULL;
    p = oklc_cpu_skip_blanks(t, p + (uint32_t)strlen(at->target->name), at->lhs.end);
    if (t[p] != '[')
        return NULL;
    uint32_t i = oklc_cpu_skip_blanks(t, p + 1, at->lhs.end), e = i;
    while (e < at->lhs.end && oklc_ident_char(t[e]))
        e++;
    p = oklc_cpu_skip_blanks(t, e, at->lhs.end);
    if (e == i || t[p] != ']' || oklc_cpu_skip_blanks(t, p + 1, at->lhs.end) != at->lhs.end)
        return NULL;
    for (const Loop *l = at->loop; l; l = l->parent)
        if (l->kind == LOOP_INNER && oklc_cpu_refers_at(oklc_cpu_iter_var(C, l), i))
            return l;
    return NULL;
}

/* The section an update covers: its loop counts up by one from a number,
 * a constant number of times, and nothing else moves the iterator. */
static bool section(Cpu *C, const Loop *l, Reduction *r)
{
    char *end;
    const Var *i = oklc_cpu_iter_var(C, l);
    if (!i || l->tile_part || !l->analyzed || l->down || strcmp(l->stride, "1") ||
        !l->trips_known || l->ntrips <= 0 || oklc_cpu_written_in(C, i, l->body))
        return false;
    r->start = strtoll(l->start, &end, 10);
    r->count = l->ntrips;
    return *end == '\0' && end != l->start;
}

/* The deepest statement of `st` that holds offset `off`. */
static const Stmt *stmt_at(const Stmt *st, uint32_t off)
{
    for (size_t i = 0; i < st->nkids; i++)
        if (oklc_in_range(st->kids[i]->range, off))
            return stmt_at(st->kids[i], off);
    return st;
}

/* Is the update made in every iteration of the nest, for every i? Only
 * braces and attributed loops around it, the @inner ones of constant
 * counts. */
static bool always_made(const Loop *top, const Atomic *at)
{
    for (const Stmt *s = stmt_at(top->node, at->stmt.begin)->parent; s && s != top->node;
         s = s->parent) {
        if (s->kind == ST_COMPOUND)
            continue;
        const Loop *l = s->kind == ST_FOR ? s->loop : NULL;
        if (!l || l->tile_part || (l->kind == LOOP_INNER && (!l->trips_known || l->ntrips <= 0)) ||
            l->kind == LOOP_REGULAR)
            return false;
    }
    return true;
}

/* The update's reduction, if it is one. */
static bool reduction_of(Cpu *C, const Loop *top, const Atomic *at, Reduction *r)
{
    const Var *v = at->target;
    if (at->block || !at->scalar || !combination(at->op) || !v || v->kind != VAR_PARAM ||
        !v->type.pointer || v->type.array || !oklc_in_range(top->stmt, at->stmt.begin))
        return false;
    const Loop *l = indexing_loop(C, at);
    r->arg = v;
    r->op = combination(at->op);
    return l && section(C, l, r) && r->count * at->size <= MAX_COPY && always_made(top, at);
}

/* Is every use of r->arg in the nest an update of r's reduction? */
static bool only_updates(Cpu *C, const Loop *top, const Reduction *r)
{
    for (size_t i = 0; i < r->arg->nrefs; i++) {
        uint32_t off = r->arg->refs[i].begin;
        if (!oklc_in_range(top->stmt, off))
            continue;
        bool update = false;
        for (size_t j = 0; j < C->k->natomics && !update; j++) {
            const Atomic *at = C->k->atomics[j];
            Reduction s;
            update = oklc_cpu_skip_blanks(C->E->nz->text, at->lhs.begin, at->lhs.end) == off &&
                     reduction_of(C, top, at, &s) && s.op == r->op && s.start == r->start &&
                     s.count == r->count;
        }
        if (!update)
            return false;
    }
    return true;
}

/* `start CMP bound`: whether loop l runs at all, or NULL when that cannot
 * be tested before the nest. */
static const char *runs(Cpu *C, const Loop *top, const Loop *l)
{
    if (!l->analyzed || !oklc_cpu_pure(C, l->start, true) || !oklc_cpu_pure(C, l->bound, true))
        return NULL;
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (!oklc_in_range(top->stmt, v->range.begin) || v->name_off == l->iter_off)
            continue;
        for (size_t j = 0; j < v->nrefs; j++)
            if (oklc_in_range(l->header, v->refs[j].begin))
                return NULL;            /* declared in the nest */
    }
    return oklc_arena_printf(C->a, "%s %s %s", oklc_cpu_op(C, l->start), oklc_cmp_spelling(l->cmp),
                             oklc_cpu_op(C, l->bound));
}

/* The nest's first tests, joined by &&: the @outer loops around the
 * update, which must be a perfect nest (each the whole body of the one
 * before), so that when one has no iteration the nest does nothing. NULL
 * if the tests cannot be made. */
static const char *nest_runs(Cpu *C, const Loop *top, const Atomic *at)
{
    const Loop *chain[8];
    size_t n = 0;
    for (const Loop *l = at->loop; l; l = l->parent)
        if (l->kind == LOOP_OUTER && n < OKLC_COUNTOF(chain))
            chain[n++] = l;
    if (!n || chain[n - 1] != top)
        return NULL;
    Buf b;
    oklc_buf_init(&b, C->a);
    for (size_t i = n; i-- > 0;) {
        const char *test = runs(C, top, chain[i]);
        bool perfect = !i || (chain[i]->nkids == 1 &&
                              oklc_cpu_collapsible(C, chain[i], chain[i - 1]));
        if (!test || !perfect)
            return NULL;
        oklc_buf_printf(&b, "%s%s", b.len ? " && " : "", test);
    }
    return b.data;
}

/* ---- one element for the whole launch ---------------------------------------------- */

/* The subscript of an update of one element the same in every thread of
 * every block, `arg[K]` or `*arg` ("0"), else NULL. */
static const char *launch_element(Cpu *C, const Atomic *at)
{
    const char *t = C->E->nz->text;
    const Var *v = at->target;
    uint32_t p = oklc_cpu_skip_blanks(t, at->lhs.begin, at->lhs.end);
    bool deref = t[p] == '*';
    if (deref)
        p = oklc_cpu_skip_blanks(t, p + 1, at->lhs.end);
    if (!oklc_cpu_refers_at(v, p))
        return NULL;
    uint32_t end = p + (uint32_t)strlen(v->name);
    if (deref)
        return oklc_cpu_skip_blanks(t, end, at->lhs.end) == at->lhs.end ? "0" : NULL;
    Range sub;
    if (oklc_cpu_subscripts(C, end, &sub, 1, &end) != 1 ||
        oklc_cpu_skip_blanks(t, end, at->lhs.end) != at->lhs.end)
        return NULL;
    Range K = oklc_cpu_trimmed(t, sub.begin, sub.end);
    if (K.begin == K.end || !oklc_cpu_pure_in(C, K, false))
        return NULL;
    for (uint32_t q = K.begin; q < K.end; q++) {
        if (!oklc_ident_char(t[q]) || (q > K.begin && oklc_ident_char(t[q - 1])) ||
            isdigit((unsigned char)t[q]))
            continue;                   /* not a name's start (a number's, suffix and all) */
        const Var *a = oklc_cpu_var_at(C, q);
        if (!a || a->kind != VAR_PARAM || a->type.pointer || a->type.array ||
            oklc_cpu_written_in(C, a, C->k->body))
            return NULL;
    }
    return oklc_cpu_render(C, K);
}

/* at's element, if at updates one element alike for the launch, in the
 * nest of top, by a combination. */
static const char *element_update(Cpu *C, const Loop *top, const Atomic *at)
{
    const Var *v = at->target;
    if (at->block || !at->scalar || !combination(at->op) || !v || v->kind != VAR_PARAM ||
        !v->type.pointer || v->type.array || !oklc_in_range(top->stmt, at->stmt.begin))
        return NULL;
    return launch_element(C, at);
}

/* Is every use of at's argument in the nest such an update, by the same
 * combination? */
static bool only_element_updates(Cpu *C, const Loop *top, const Atomic *at)
{
    const Var *v = at->target;
    for (size_t i = 0; i < v->nrefs; i++) {
        uint32_t off = v->refs[i].begin;
        bool update = !oklc_in_range(top->stmt, off);
        for (size_t j = 0; j < C->k->natomics && !update; j++) {
            const Atomic *b = C->k->atomics[j];
            update = b->target == v && oklc_in_range(b->lhs, off) &&
                     combination(b->op) == combination(at->op) && element_update(C, top, b);
        }
        if (!update)
            return false;
    }
    return true;
}

/* The variable the updates of `element` (its text `arg[K]`) go to,
 * declared before the nest with what it flushes after it (C->scratch),
 * its clause added to `clauses`. */
static const char *accumulator(Cpu *C, const Loop *top, const Atomic *at, const char *element,
                               Buf *clauses)
{
    char op = combination(at->op);
    for (size_t i = 0; i < C->scratch.len; i++) {
        const Scratch *s = &C->scratch.data[i];
        if (s->top == top && s->element && !strcmp(s->element, element) && s->op == op)
            return s->name;
    }
    const char *arg = at->target->name, *ind = oklc_emit_indent(C->E, top->stmt.begin);
    const char *name = oklc_arena_printf(C->a, "_occa_acc%zu", C->reduced.len);
    const char *type = oklc_arena_printf(C->a, "__typeof__(*%s)", arg);
    const char *identity = op == '*' ? "1" : op == '&' ? oklc_arena_printf(C->a, "~(%s)0", type)
                                                        : "0";
    Scratch s = {.top = top, .name = name, .element = element, .op = op,
                 .decl = oklc_arena_printf(C->a, "%s %s = %s;", type, name, identity)};
    s.flush = oklc_arena_printf(C->a, "if (%s != %s) {\n%s    #pragma omp atomic update\n"
                                      "%s    %s %c= %s;\n%s  }", name, identity, ind, ind,
                                element, op, name, ind);
    vec_push(C->a, &C->scratch, s);
    oklc_buf_printf(clauses, " reduction(%c : %s)", op, name);
    return name;
}

/* The updates of one element alike for the launch in the nest of top,
 * as variables OpenMP reduces. */
static void element_reductions(Cpu *C, const Loop *top, Buf *clauses)
{
    for (size_t i = 0; i < C->k->natomics; i++) {
        const Atomic *at = C->k->atomics[i];
        const char *K = element_update(C, top, at);
        if (!K || !only_element_updates(C, top, at))
            continue;
        const char *element = oklc_arena_printf(C->a, "%s[%s]", at->target->name, K);
        const char *name = accumulator(C, top, at, element, clauses);
        vec_push(C->a, &C->reduced, at);
        oklc_edit_replace(&C->E->ed, at->lhs.begin, at->lhs.end, name);
    }
}

const char *oklc_cpu_reductions(Cpu *C, const Loop *top, const char **guard)
{
    Buf clauses;
    oklc_buf_init(&clauses, C->a);
    VEC(const Var *) args = {0};
    *guard = NULL;
    /* a jump may skip a section's update (one element's: its variable
     * counts what was made, whatever was skipped) */
    const bool jumps = oklc_cpu_has_jump(top->node, false);
    for (size_t i = 0; i < C->k->natomics && !jumps; i++) {
        const Atomic *at = C->k->atomics[i];
        Reduction r;
        const char *test;
        if (!reduction_of(C, top, at, &r) || !only_updates(C, top, &r) ||
            !(test = nest_runs(C, top, at)))
            continue;
        vec_push(C->a, &C->reduced, at);
        size_t seen = 0;
        while (seen < args.len && args.data[seen] != r.arg)
            seen++;
        if (seen == args.len) {
            vec_push(C->a, &args, r.arg);
            oklc_buf_printf(&clauses, " reduction(%c : %s[%lld:%lld])", r.op, r.arg->name,
                            r.start, (long long)r.count);
        }
        *guard = test;                /* one perfect nest: the same for every update */
    }
    element_reductions(C, top, &clauses);
    return clauses.len ? clauses.data : "";
}
