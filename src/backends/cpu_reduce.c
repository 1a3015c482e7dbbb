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
 * float's atomic add is a compare-and-swap loop). Bins alike for the
 * launch, `arg[base + v % C]` or `arg[base + (v & M)]` (a histogram; v
 * anything, a local set to such a value too), go to an array of the
 * nest the same way, `_occa_acc0[(v % C) + C - 1]`, each changed bin
 * added to its element after the nest (a histogram of 256 bins on two
 * threads: 130 times faster). Conditions:
 *  - base is made of numbers and arguments passed by value that nothing
 *    in the kernel changes, joined by operators (the same elements
 *    wherever it is evaluated, after the nest too); at most 1024 bins;
 *  - the combination as above;
 *  - every other use of arg in the nest is an update by the same
 *    combination (of any element: their order does not matter), or
 *    reaches elements that no iteration of any thread can make one of
 *    these, proven with isl (cpu_apart.c; not in a lambda, which may run
 *    elsewhere): `out[g] = v` beside `@atomic out[n * 64 + (v & 7)] += 1`,
 *    g below n * 64. Otherwise a read or a store of one of them midway
 *    would see the updates held back;
 *  - the update is not in a lambda, whose captures may copy the variable.
 * An element is touched after the nest only if the updates changed its
 * variable (a floating-point element: if an update was made, a flag
 * OpenMP reduces too, since x + 0 is not x where x is -0 or a signaling
 * NaN; so bins are of integers only): an update made under a condition
 * that never held touches nothing (an argument not passed, an index out
 * of range, a bin past the array's end). A return or a continue in the
 * nest changes nothing: the variable has the updates made.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/expr.h"
#include "cpu.h"

/* MAX_BINS: each launch zeroes, combines and flushes every bin, whatever
 * the updates: 8191 bins for 256 updates ran 5 times slower than their
 * atomics on two threads (1023 bins, 1.5 times; 255, alike), 10 times
 * faster for 65536 updates. */
enum { MAX_COPY = 64 * 1024, MAX_BINS = 1024 };

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

/* ---- elements alike for the whole launch -------------------------------------------------- */

/* The elements an update reaches in every thread of every block:
 * arg[base + part], part's value between lo and hi (no part: lo = hi = 0,
 * one element), base the sum of the terms of `terms` ("0" if none). */
typedef struct Bins {
    Span        span;         /* the terms of base, lo and hi */
    const char *base;
    Range       part;
} Bins;

/* Is the term made of numbers and arguments passed by value that nothing
 * in the kernel changes, joined by operators (the same value wherever it
 * is evaluated, after the nest too)? */
static bool alike(Cpu *C, Range K)
{
    const char *t = C->E->nz->text;
    if (K.begin == K.end || !oklc_cpu_pure_in(C, K, false))
        return false;
    for (uint32_t q = K.begin; q < K.end; q++) {
        if (!oklc_ident_char(t[q]) || (q > K.begin && oklc_ident_char(t[q - 1])) ||
            isdigit((unsigned char)t[q]))
            continue;                   /* not a name's start (a number's, suffix and all) */
        const Var *a = oklc_cpu_var_at(C, q);
        if (!a || a->kind != VAR_PARAM || a->type.pointer || a->type.array ||
            oklc_cpu_written_in(C, a, C->k->body))
            return false;
    }
    return true;
}

/* The offset of the first operator `op` (one character, not doubled) of
 * r outside brackets, or r.end. */
static uint32_t top_operator(const char *t, Range r, char op)
{
    int depth = 0;
    for (uint32_t q = r.begin; q < r.end; q++) {
        char ch = t[q];
        depth += (ch == '(' || ch == '[' || ch == '{') - (ch == ')' || ch == ']' || ch == '}');
        if (!depth && ch == op && t[q + 1] != op && (q == r.begin || t[q - 1] != op) &&
            t[q + 1] != '=' && !oklc_cpu_unary(t, r.begin, q))
            return q;
    }
    return r.end;
}

/* r without parentheses around all of it */
static Range unwrapped(const char *t, Range r)
{
    while (r.end - r.begin >= 2 && t[r.begin] == '(' &&
           oklc_cpu_closing(t, r.begin, r.end) == r.end - 1)
        r = oklc_cpu_trimmed(t, r.begin + 1, r.end - 1);
    return r;
}

/* The values of a term `v % C` (C a positive number: between -(C-1)
 * and C-1) or `v & M` (M a number, at least 0: between 0 and M), its
 * operator outside brackets (a cast around it would change them), or of
 * a local set so that nothing changes, of a type as wide as int. */
static bool bounded(Cpu *C, Range r, int depth, int64_t *lo, int64_t *hi)
{
    const char *t = C->E->nz->text;
    r = unwrapped(t, r);
    const Var *v = oklc_cpu_var_at(C, r.begin);
    if (v && v->kind == VAR_LOCAL && oklc_cpu_refers_at(v, r.begin) &&
        r.end == r.begin + strlen(v->name) && depth < 4 && v->is_int && v->size >= 4 &&
        v->init_form == '=' && !v->type.pointer && !v->type.array && !v->type.reference &&
        !v->static_ && !v->shared && !v->exclusive && !oklc_cpu_written_in(C, v, C->k->body))
        return bounded(C, oklc_cpu_trimmed(t, v->init.begin, v->init.end), depth + 1, lo, hi) &&
               (v->is_signed || *lo >= 0);
    const Expr *e = oklc_expr_parse(C->E->c, r);
    if (e->op == X_MOD && e->b->op == X_NUM && e->b->value > 0 && e->b->value <= MAX_BINS &&
        top_operator(t, r, '%') < r.end) {
        *lo = 1 - e->b->value, *hi = e->b->value - 1;
        return true;
    }
    const Expr *m = e->op != X_BITAND ? NULL : e->b->op == X_NUM ? e->b : e->a;
    if (m && m->op == X_NUM && m->value >= 0 && m->value < MAX_BINS &&
        top_operator(t, r, '&') < r.end) {
        *lo = 0, *hi = m->value;
        return true;
    }
    return false;
}

/* The subscript's terms: split at its `+` outside brackets when it is a
 * sum (no operator outside brackets binds less than + and -); each one
 * alike for the launch but one, the part, which may be bounded. */
static bool bins_of(Cpu *C, Range S, Bins *b)
{
    const char *t = C->E->nz->text;
    ExprOp root = oklc_expr_parse(C->E->c, S)->op;
    Range rest = S;
    Buf base;
    oklc_buf_init(&base, C->a);
    while (rest.begin < rest.end) {
        uint32_t plus = root == X_ADD || root == X_SUB ? top_operator(t, rest, '+') : rest.end;
        Range term = oklc_cpu_trimmed(t, rest.begin, plus);
        rest.begin = plus + (plus < rest.end);
        if (alike(C, term) && b->span.nterms < OKLC_COUNTOF(b->span.terms)) {
            b->span.terms[b->span.nterms++] = term;
            oklc_buf_printf(&base, "%s%s", base.len ? " + " : "", oklc_cpu_render(C, term));
        } else if (b->part.begin != b->part.end || !bounded(C, term, 0, &b->span.lo, &b->span.hi)) {
            return false;
        } else {
            b->part = term;
        }
    }
    b->base = base.len ? base.data : "0";
    return b->span.nterms || b->part.begin != b->part.end;
}

/* Where the variable the update changes is named in its target, `x[..]`
 * or `*x`; *deref: the latter. */
static uint32_t target_at(const char *t, const Atomic *at, bool *deref)
{
    uint32_t p = oklc_cpu_skip_blanks(t, at->lhs.begin, at->lhs.end);
    *deref = t[p] == '*';
    return *deref ? oklc_cpu_skip_blanks(t, p + 1, at->lhs.end) : p;
}

/* The elements of an update alike in every thread of every block,
 * `arg[base + part]` or `*arg`: false if it is not one. */
static bool launch_bins(Cpu *C, const Atomic *at, Bins *b)
{
    const char *t = C->E->nz->text;
    const Var *v = at->target;
    bool deref;
    uint32_t p = target_at(t, at, &deref);
    *b = (Bins){.base = "0"};
    if (!oklc_cpu_refers_at(v, p))
        return false;
    uint32_t end = p + (uint32_t)strlen(v->name);
    if (deref)
        return oklc_cpu_skip_blanks(t, end, at->lhs.end) == at->lhs.end;
    Range sub;
    if (oklc_cpu_subscripts(C, end, &sub, 1, &end) != 1 ||
        oklc_cpu_skip_blanks(t, end, at->lhs.end) != at->lhs.end)
        return false;
    /* floating-point bins: no flag of their own (below) */
    return bins_of(C, oklc_cpu_trimmed(t, sub.begin, sub.end), b) &&
           (b->part.begin == b->part.end || !at->is_float) &&
           b->span.hi - b->span.lo < MAX_BINS;
}

/* Is the offset in a lambda's body (whose captures may copy a variable)? */
static bool in_lambda(const Cpu *C, uint32_t off)
{
    for (size_t i = 0; i < C->E->m->nlambdas; i++)
        if (oklc_in_range(C->E->m->lambdas[i], off))
            return true;
    return false;
}

/* Does at update elements alike for the launch (*b), in the nest of top,
 * by a combination, outside lambdas? */
static bool element_update(Cpu *C, const Loop *top, const Atomic *at, Bins *b)
{
    const Var *v = at->target;
    if (at->block || !at->scalar || !combination(at->op) || !v || v->kind != VAR_PARAM ||
        !v->type.pointer || v->type.array || !oklc_in_range(top->stmt, at->stmt.begin) ||
        in_lambda(C, at->stmt.begin))
        return false;
    return launch_bins(C, at, b);
}

/* The @atomic update whose target is the use of v at `ref`, or NULL. */
static const Atomic *atomic_at(Cpu *C, const Var *v, Range ref)
{
    const char *t = C->E->nz->text;
    for (size_t j = 0; j < C->k->natomics; j++) {
        const Atomic *u = C->k->atomics[j];
        if (u->target != v || !oklc_in_range(u->lhs, ref.begin) || u->block || !u->scalar)
            continue;
        bool deref;
        if (target_at(t, u, &deref) == ref.begin)
            return u;
    }
    return NULL;
}

/* The elements the use of v at `ref` reaches: those of an update of
 * elements alike for the launch, else `*v` or `v[s]`; false if neither. */
static bool span_at(Cpu *C, const Loop *top, const Var *v, Range ref, Span *s)
{
    const char *t = C->E->nz->text;
    const Atomic *u = atomic_at(C, v, ref);
    Bins b;
    if (u && element_update(C, top, u, &b)) {
        *s = b.span;
        return true;
    }
    *s = (Span){.nterms = 0};
    uint32_t before = ref.begin, end;
    while (before > top->stmt.begin && isspace((unsigned char)t[before - 1]))
        before--;
    bool unary = oklc_cpu_unary(t, top->stmt.begin, before - 1);
    if (t[before - 1] == '*' && unary)
        return true;
    s->nterms = 1;
    return !(t[before - 1] == '&' && unary) &&
           oklc_cpu_subscripts(C, ref.end, &s->terms[0], 1, &end) == 1;
}

/* The most uses of an argument beside its updates that are proven apart
 * from them (each an isl set): past it, none is. */
enum { MAX_APART = 64 };

/* Can the updates of at's elements wait for the end of the nest? Every
 * other use of the argument in the nest is an update by the same
 * combination (of any element: the order of those does not matter), or
 * reaches elements (`*arg`, `arg[s]`, the bins of another update) that
 * none of the threads' iterations can make one of them. */
static bool only_combined(Cpu *C, const Loop *top, const Atomic *at, const Bins *b)
{
    const Var *v = at->target;
    int apart = 0;
    for (size_t i = 0; i < v->nrefs; i++) {
        Range ref = v->refs[i];
        if (!oklc_in_range(top->stmt, ref.begin))
            continue;
        const Atomic *u = atomic_at(C, v, ref);
        if (u && combination(u->op) == combination(at->op))
            continue;
        Span s;
        if (++apart > MAX_APART || in_lambda(C, ref.begin) || !span_at(C, top, v, ref, &s) ||
            !oklc_cpu_apart(C, top, ref.begin, &s, &b->span))
            return false;
    }
    return true;
}

/* The variable (an array for a part: `name[0:count]`) the updates of
 * at's elements go to, declared before the nest with what it flushes
 * after it (C->scratch), its clause added to `clauses`. */
static const char *accumulator(Cpu *C, const Loop *top, const Atomic *at, const Bins *b,
                               Buf *clauses)
{
    char op = combination(at->op);
    const char *arg = at->target->name, *ind = oklc_emit_indent(C->E, top->stmt.begin);
    bool part = b->part.begin != b->part.end;
    const char *key = part ? oklc_arena_printf(C->a, "%s[%s + (%lld .. %lld)]", arg, b->base,
                                               (long long)b->span.lo, (long long)b->span.hi)
                           : oklc_arena_printf(C->a, "%s[%s]", arg, b->base);
    /* a floating-point element: flushed if an update was made, whatever
     * the sum (x + 0 is not x where x is -0 or a signaling NaN) */
    const char *made = "(%s_made = 1, %s)";
    for (size_t i = 0; i < C->scratch.len; i++) {
        const Scratch *s = &C->scratch.data[i];
        if (s->top == top && s->element && !strcmp(s->element, key) && s->op == op)
            return at->is_float ? oklc_arena_printf(C->a, made, s->name, s->name) : s->name;
    }
    const char *name = oklc_arena_printf(C->a, "_occa_acc%zu", C->reduced.len);
    const char *type = oklc_arena_printf(C->a, "__typeof__(*%s)", arg);
    const char *identity = op == '*' ? "1" : op == '&' ? oklc_arena_printf(C->a, "~(%s)0", type)
                                                        : "0";
    Scratch s = {.top = top, .name = name, .element = key, .op = op};
    if (!part) {
        s.decl = oklc_arena_printf(C->a, "%s %s = %s;", type, name, identity);
        const char *test = oklc_arena_printf(C->a, "%s != %s", name, identity);
        oklc_buf_printf(clauses, " reduction(%c : %s)", op, name);
        if (at->is_float) {
            s.decl = oklc_arena_printf(C->a, "%s\n%s  int %s_made = 0;", s.decl, ind, name);
            test = oklc_arena_printf(C->a, "%s_made", name);
            oklc_buf_printf(clauses, " reduction(| : %s_made)", name);
        }
        s.flush = oklc_arena_printf(C->a, "if (%s) {\n%s    #pragma omp atomic update\n"
                                          "%s    %s %c= %s;\n%s  }", test, ind, ind,
                                    key, op, name, ind);
    } else {
        long long n = (long long)(b->span.hi - b->span.lo + 1), lo = (long long)b->span.lo;
        const char *at_j = oklc_arena_printf(C->a, "%s%s_occa_j%s", strcmp(b->base, "0") ?
                                             b->base : "", strcmp(b->base, "0") ? " + " : "",
                                             lo ? oklc_arena_printf(C->a, " - %lld", -lo) : "");
        s.decl = oklc_arena_printf(C->a, "%s %s[%lld];\n%s  for (int _occa_j = 0; _occa_j < "
                                         "%lld; ++_occa_j) %s[_occa_j] = %s;",
                                   type, name, n, ind, n, name, identity);
        s.flush = oklc_arena_printf(
            C->a, "for (int _occa_j = 0; _occa_j < %lld; ++_occa_j)\n%s    if (%s[_occa_j] != "
                  "%s) {\n%s      #pragma omp atomic update\n%s      %s[%s] %c= %s[_occa_j];\n"
                  "%s    }", n, ind, name, identity, ind, ind, arg, at_j, op, name, ind);
        oklc_buf_printf(clauses, " reduction(%c : %s[0:%lld])", op, name, n);
    }
    vec_push(C->a, &C->scratch, s);
    return at->is_float ? oklc_arena_printf(C->a, made, name, name) : name;
}

/* The updates of elements alike for the launch in the nest of top, as
 * variables OpenMP reduces. */
static void element_reductions(Cpu *C, const Loop *top, Buf *clauses)
{
    for (size_t i = 0; i < C->k->natomics; i++) {
        const Atomic *at = C->k->atomics[i];
        Bins b;
        if (oklc_cpu_reduced(C, at) || !element_update(C, top, at, &b) ||
            !only_combined(C, top, at, &b))
            continue;
        const char *name = accumulator(C, top, at, &b, clauses);
        vec_push(C->a, &C->reduced, at);
        if (b.part.begin == b.part.end) {
            oklc_edit_replace(&C->E->ed, at->lhs.begin, at->lhs.end, name);
            continue;
        }
        /* the part stays as written (its edits with it), the rest goes */
        long long lo = (long long)b.span.lo;
        oklc_edit_replace(&C->E->ed, at->lhs.begin, b.part.begin,
                          oklc_arena_printf(C->a, "%s[%s", name, lo ? "(" : ""));
        oklc_edit_replace(&C->E->ed, b.part.end, at->lhs.end,
                          lo ? oklc_arena_printf(C->a, ") + %lld]", -lo) : "]");
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
