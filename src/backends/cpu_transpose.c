/*
 * cpu_transpose.c - a @shared matrix that a block's threads read down a
 * column, kept a second time transposed.
 *
 * On a CPU a block's threads are loops, the innermost thread index (the
 * innermost @inner loop's) the innermost loop, which the compiler makes
 * vectors of. A read `s[i][m]` with i that index and m not reaches
 * elements a row apart across the vector (a gather, or a transposition in
 * registers, for every vector), where a copy stored transposed is read
 * with one load: the spectral-element derivative along r (sum over m of
 * D[i][m] u[m]) is the usual case, 1.4x faster on one core with AVX2
 * (docs/benchmarks.md). A second copy costs a store per store of the
 * matrix, so it is made only where it pays: a read repeated by a loop of
 * each thread (m) and stores that no such loop repeats.
 *
 * The copy is the prelude's _occa_transposed<T, R, C>: `_occa_t_s[a][b]`
 * is element (a, b), read from its transposed array, and
 * `_occa_t_s.with(s)[a][b] = v` stores v in both; so only the names of the
 * uses change, and every other pass (the interchange, splits at barriers)
 * renders and moves them as they do the rest.
 *
 * Conservative: a matrix used in any other way (its address, an element's
 * address, a compound assignment, ++, an @atomic, a @dim) keeps one copy.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* What a use of the matrix is. */
typedef enum Use { USE_OTHER, USE_STORE, USE_READ } Use;

/* Where a use is: the innermost loop of the threads around it, and
 * whether a loop of each thread (a plain loop inside that one) repeats it. */
typedef struct Place {
    const Loop *threads;
    bool        repeated;
    const Stmt *st;         /* the innermost statement around it */
} Place;

/* The matrix and what its uses found. */
typedef struct Matrix {
    const Var  *v;
    int64_t     rows, cols;
    const char *copy;       /* the copy's name: _occa_t_<name> */
    const Loop *paying;     /* the loop of the first read across threads that a loop repeats */
    const char *kept;       /* why the matrix keeps one copy, if it does */
} Matrix;

/* A constant matrix's extents from its type ("double[8][8]"): false for
 * another shape. */
static bool matrix_extents(const Var *v, int64_t *rows, int64_t *cols)
{
    const char *s = strchr(v->type.spelling, '[');
    int64_t ext[2];
    for (int k = 0; k < 2; k++) {
        char *e;
        if (!s || (ext[k] = strtoll(s + 1, &e, 10)) <= 0 || ext[k] > INT32_MAX || *e != ']')
            return false;
        s = e[1] == '[' ? e + 1 : NULL;
        if (k == 0 && !s)
            return false;
    }
    *rows = ext[0];
    *cols = ext[1];
    return !s;
}

/* The kid of st whose range holds off (kids are in text order). */
static const Stmt *kid_at(const Stmt *st, uint32_t off)
{
    size_t lo = 0, hi = st->nkids;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->kids[mid]->range.end <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nkids && oklc_in_range(st->kids[lo]->range, off) ? st->kids[lo] : NULL;
}

static bool is_loop(const Stmt *st)
{
    return st->kind == ST_FOR || st->kind == ST_WHILE || st->kind == ST_DO;
}

/* The place of offset off: down the statement tree from the kernel's body. */
static Place place_of(const Kernel *k, uint32_t off)
{
    Place p = {NULL, false, NULL};
    for (const Stmt *st = k->root, *kid; st; st = kid) {
        p.st = st;
        if (st->kind == ST_DECL)
            break;     /* its initializer's expression: the declaration is the statement */
        kid = kid_at(st, off);
        if (!is_loop(st) || !kid)
            continue;
        if (st->loop && st->loop->kind == LOOP_INNER && !oklc_cpu_flat_tile(st->loop))
            p = (Place){st->loop, false, st};
        else if (st->loop)
            p = (Place){NULL, false, st};
        else if (p.threads && (st->kind != ST_FOR || kid == st->kids[st->nkids - 1]))
            p.repeated = true;   /* in the body, not the header's declaration */
    }
    return p;
}

static bool in_atomic(const Kernel *k, uint32_t off)
{
    for (size_t i = 0; i < k->natomics; i++)
        if (oklc_in_range(k->atomics[i]->stmt, off))
            return true;
    return false;
}

/* The text before b, blanks and opening parentheses skipped: where it ends. */
static uint32_t before(const char *t, uint32_t b)
{
    while (b > 0 && (isspace((unsigned char)t[b - 1]) || t[b - 1] == '('))
        b--;
    return b;
}

/* The longest statement whose calls are looked for: beyond it, every use
 * counts as one (each use scans its statement, which stays linear so). */
enum { LONGEST_STATEMENT = 4096 };

/* Is the '(' at p a call's: after a name but a keyword's (if, for, ...),
 * or after what may end a callee (`f<T>(`, `a[i](`, `g()(`, a lambda)?
 * *name: where the name starts (UINT32_MAX: no name). */
static bool call_paren(const char *t, uint32_t from, uint32_t p, uint32_t *name)
{
    static const char *const keywords[] = {"if", "for", "while", "switch", "return"};
    uint32_t e = p;
    while (e > from && isspace((unsigned char)t[e - 1]))
        e--;
    for (*name = e; *name > from && oklc_ident_char(t[*name - 1]); --*name)
        ;
    if (*name == e) {
        *name = UINT32_MAX;
        return e > from && strchr(">])}", t[e - 1]);
    }
    for (size_t k = 0; k < OKLC_COUNTOF(keywords); k++)
        if (oklc_cpu_text_is(t, (Range){*name, e}, keywords[k]))
            return false;
    return !isdigit((unsigned char)t[*name]);
}

/* Is off in the arguments of a call (of other than a pure function, which
 * reads values: min, sqrt, ...) of statement st: a function that may take
 * the element by reference? Yes in a statement too long to look. */
static bool in_call(Cpu *C, const Stmt *st, uint32_t off)
{
    const char *t = C->E->nz->text;
    Range r = st->range;
    if (r.end - r.begin > LONGEST_STATEMENT)
        return true;
    for (uint32_t p = off, depth = 0, name; p > r.begin; p--) {
        if (t[p - 1] == ')')
            depth++;
        else if (t[p - 1] == '(' && depth)
            depth--;
        else if (t[p - 1] == '(' && call_paren(t, r.begin, p - 1, &name)) {
            uint32_t close = p;
            for (int open = 1; close < r.end && open; close++)
                open += t[close] == '(' ? 1 : t[close] == ')' ? -1 : 0;
            if (name == UINT32_MAX || !oklc_cpu_pure_in(C, (Range){name, close}, true))
                return true;   /* name(...) as a whole; a callee not named: not pure */
        }
    }
    return false;
}

/* Does declaration st bind a reference to what off is in? */
static bool bound(const Stmt *st, uint32_t off)
{
    for (size_t i = 0; st->kind == ST_DECL && i < st->ndecls; i++)
        if (st->decls[i]->type.reference && oklc_in_range(st->decls[i]->init, off))
            return true;
    return false;
}

/* The use ref of the matrix, in statement st: an element read or stored
 * with `=`, or anything else; sub: its two subscripts. */
static Use use_of(Cpu *C, const Stmt *st, Range ref, Range sub[2])
{
    const char *t = C->E->nz->text;
    uint32_t n = (uint32_t)C->E->nz->len, end = 0;
    if (oklc_cpu_subscripts(C, ref.end, sub, 3, &end) != 2 || in_atomic(C->k, ref.begin))
        return USE_OTHER;
    uint32_t b = before(t, ref.begin), a = oklc_cpu_skip_blanks(t, end, n);
    bool closed = t[a] == ')';
    while (t[a] == ')' || isspace((unsigned char)t[a]))
        a++;
    if ((b >= 2 && (!strncmp(t + b - 2, "++", 2) || !strncmp(t + b - 2, "--", 2))) ||
        (b >= 1 && t[b - 1] == '&' && oklc_cpu_unary(t, 0, b - 1)) || t[a] == '.' ||
        !strncmp(t + a, "->", 2) || in_call(C, st, ref.begin) || bound(st, ref.begin))
        return USE_OTHER;   /* a write, an address, a member, a call's reference */
    if (oklc_cpu_assigned_at(C, a))
        return t[a] == '=' && !closed ? USE_STORE : USE_OTHER;
    return USE_READ;
}

/* Is a read with subscripts sub at place p one across the threads: the
 * innermost thread index added into the first subscript, absent from the
 * second? */
static bool across_threads(Cpu *C, Range sub[2], Place p)
{
    const Var *i = p.threads ? oklc_cpu_iter_var(C, p.threads) : NULL;
    return i && oklc_cpu_uses(i, sub[0]) && !oklc_cpu_uses(i, sub[1]) &&
           oklc_cpu_in_order(C, i, sub[0]);
}

/* The uses of m's matrix: what they are, and whether a copy pays. */
static void judge(Cpu *C, Matrix *m)
{
    const Var *v = m->v;
    for (size_t r = 0; r < v->nrefs; r++) {
        Range ref = v->refs[r], sub[2];
        if (ref.begin == v->name_off)
            continue;
        Place p = place_of(C->k, ref.begin);
        switch (use_of(C, p.st, ref, sub)) {
        case USE_OTHER:
            m->kept = m->kept ? m->kept : "it is used other than as an element read or set with =";
            break;
        case USE_STORE:
            if (p.repeated && !m->kept)
                m->kept = "a loop of each thread sets its elements (a second store each time)";
            break;
        case USE_READ:
            if (!m->paying && p.repeated && across_threads(C, sub, p))
                m->paying = p.threads;
            break;
        }
    }
}

/* The copy declared after the matrix, its stores made in both, its reads
 * across the threads made of the copy. */
static void apply(Cpu *C, const Matrix *m)
{
    const Var *v = m->v;
    const char *ty = v->type.spelling;
    oklc_edit_after(&C->E->ed, v->decl_stmt->range.end,
                    oklc_arena_printf(C->a, " _occa_transposed<%.*s, %lld, %lld> %s;",
                                      (int)(strchr(ty, '[') - ty), ty, (long long)m->rows,
                                      (long long)m->cols, m->copy));
    for (size_t r = 0; r < v->nrefs; r++) {
        Range ref = v->refs[r], sub[2];
        if (ref.begin == v->name_off)
            continue;
        Place p = place_of(C->k, ref.begin);
        Use u = use_of(C, p.st, ref, sub);
        if (u == USE_STORE)
            oklc_edit_replace(&C->E->ed, ref.begin, ref.end,
                              oklc_arena_printf(C->a, "%s.with(%s)", m->copy, v->name));
        else if (across_threads(C, sub, p)) {
            oklc_edit_replace(&C->E->ed, ref.begin, ref.end, m->copy);
            vec_push(C->a, &C->transposed, sub[0]);
        }
    }
}

void oklc_cpu_transpose(Cpu *C)
{
    if (!C->k->root)
        return;
    for (size_t i = 0; i < C->k->nlocals; i++) {
        Matrix m = {.v = C->k->locals[i]};
        if (!m.v->shared || m.v->dim || !m.v->decl_stmt || m.v->type.reference ||
            !matrix_extents(m.v, &m.rows, &m.cols))
            continue;
        judge(C, &m);
        if (!m.paying)
            continue;
        Range head = {m.paying->header.begin + 1, m.paying->header.end - 1};
        if (m.kept) {
            oklc_cpu_decision(C, head, false,
                              oklc_arena_printf(C->a, "@shared %s read across the threads: "
                                                "one copy kept, %s", m.v->name, m.kept));
            continue;
        }
        m.copy = oklc_arena_printf(C->a, "_occa_t_%s", m.v->name);
        oklc_cpu_decision(C, head, false,
                          oklc_arena_printf(C->a, "@shared %s read across the threads "
                                            "(%s[%s][...]) in a loop of each thread: a "
                                            "transposed copy read with unit stride (%s)",
                                            m.v->name, m.v->name, m.paying->iter, m.copy));
        apply(C, &m);
    }
    if (C->transposed.len)
        qsort(C->transposed.data, C->transposed.len, sizeof *C->transposed.data, oklc_cpu_by_begin);
}
