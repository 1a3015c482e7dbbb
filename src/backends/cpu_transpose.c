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
        kid = oklc_cpu_kid_at(st, off);
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
        switch (oklc_cpu_element_use(C, p.st, ref, 2, sub)) {
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
        ElemUse u = oklc_cpu_element_use(C, p.st, ref, 2, sub);
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
        m.copy = oklc_cpu_transposed_name(C, m.v);
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
