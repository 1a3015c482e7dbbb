/*
 * cpu_interchange.c - a per-thread loop (a strided slice, or a loop over
 * the threads' neighbouring elements) interchanged with the @inner loops
 * around it, the threads in tiles of rows where they keep values across it.
 *
 * Takes one loop at a time (early, then late: see cpu.c); gives the nest
 * around it rewritten, recorded in Cpu.interchanged, true when done. A
 * flat @tile is relaid as @outer and @inner loops into the second
 * translation for it (oklc_cpu_relay_tile).
 *
 * GPU code gives each thread every T-th element and keeps what it
 * accumulates in a register:
 *
 *   for (int t = 0; t < T; ++t; @inner) {
 *     float acc = 0;
 *     for (int i = base + t; i < end; i += T)
 *       acc += x[i] * y[i];
 *     s[t] = acc;
 *   }
 *
 * Run as written on a CPU, one thread's loop jumps T elements at a time.
 * Interchanged, the elements run in rounds of T in memory order, the
 * threads inside each round: the unit-stride, vectorizable loop. What each
 * thread keeps across its elements gets one slot per thread:
 *
 *   float acc[T];
 *   for (t = 0; t < T; ++t) acc[t] = 0;
 *   for (int r = base; r < end; r += T)
 *     for (t = 0; t < min(T, end - r); ++t) { int i = r + t; acc[t] += x[i] * y[i]; }
 *   for (t = 0; t < T; ++t) s[t] = acc[t];
 *
 * A step other than T (a grid-stride loop's `i += G * T`, G blocks) runs in
 * rounds of that step, the T threads' neighbouring elements inside each.
 *
 * A per-thread loop of another form, `for (k = 0; k < 4; ++k)` whose body
 * reaches the threads' neighbouring elements (t added to an index: x[base
 * + k * T + t]), is interchanged the same way: k outside, the threads
 * inside. (Where t multiplies or divides, the threads' elements are apart
 * and the loop stays as written: interchanged it would walk them with a
 * stride.)
 *
 * In a nest of two or three levels whose threads keep values across the
 * loop (one thread per element of C, `c += A[row * N + k] * B[k * N +
 * col]`), the threads run in tiles of 8, 4 or 2 rows instead: the tile's
 * values are a local array, `float c[8][16]`, which the compiler keeps in
 * registers while the loop runs, the tile's rows inside each iteration
 * and the innermost threads innermost, under _occa_simd (the prelude's
 * `#pragma omp simd`: the iterations are independent threads); loops
 * that are the loop's whole body, one inside the other (a k-tile loop and
 * the k loop in it), run outside the tile's threads as well. A
 * per-thread value nothing writes, from an initializer without memory
 * reads (`const int col = bx * 16 + tx`), is declared again in each loop
 * over the threads rather than kept in a slot, so that the compiler sees
 * the neighbouring elements. The loop may sit under a guard of the
 * threads, `if (row < N && col < N) { ... }` ending the body: evaluated
 * again around each thread's statements, and a block whose threads all
 * pass it runs a copy without it. An @exclusive value the loop
 * accumulates into (a staged product's `acc += s_A[ty][k] * s_B[k][tx]`
 * over its @shared tiles) is kept the same way: the tile copies it from
 * its slots before the loop and back after it (a staged 16 x 16 float
 * product: 0.73 -> 0.80-0.89 of the expert's, in doubles 0.72 -> 0.85).
 * Where the loop only updates the tile's values and runs a constant count
 * of at most 32 iterations, it is unrolled (GCC otherwise keeps the tile
 * in memory across it: 5.9 -> 2.7 ms standalone); tiles are not used where
 * the innermost threads would gather their operands (gathers()). A long
 * counted loop (`for (k = 0; k < N; ++k)`, spanning more than LONG_LOOP
 * values at run time) runs in blocks of k (blocked_tiles()): the other
 * operand's rows of a block (16 KiB) stay in L1 while every tile of the
 * block's rows uses them, the tiles' values kept across blocks in a copy
 * per thread (matmulNaive's shape: at 1024 1.1-1.2 times faster, at 1536
 * 1.2-1.8; at 768 as fast; at 512 up to 10% slower, hence the run-time
 * choice). Where every row of blocks reads the loop's other operand alike
 * (B[(kt + k) * N + bx * 16 + tx]), it is packed once per column of blocks
 * into a panel the tiles read in order, the @outer loops swapped so that
 * a thread runs a column's blocks together (panel_of(): 1536^2 floats 2-3
 * times faster than without; matmulNaive's guarded form as well, 1024^2
 * 37 -> 18 ms).
 *
 * Every thread still runs its own statements in their order (its elements
 * in order: the same sums, bit for bit); only the threads' statements
 * interleave otherwise, which the @inner loop's threads allow (they run at
 * once on a GPU; nothing orders them without a barrier). Where that is
 * not all it takes, the loop is left as written:
 *  - the @inner loops form a perfect nest of up to three levels (a 2D
 *    block's j and i), each counting up from 0 by 1 over a known count, at
 *    most MAX_THREADS threads in all, with no barrier, return, break,
 *    continue or goto in it;
 *  - the innermost body is declarations and statements, the loop, then
 *    any statements; a strided loop `for (T i = base + t; i < end;
 *    i += S)` (or <=) only in a nest of one level; its base, end and step
 *    are the same for every thread (no t, no per-thread value), end and S
 *    have no memory read, side effect or call (but of a pure function:
 *    min, max, sqrt...) and nothing in the body writes what they read (a
 *    trip count that depends on the thread or on data the loop changes has
 *    no common rounds); for another loop, likewise its whole header, and
 *    its body does not write its variable;
 *  - the declarations before it are scalars with a plain initializer (=)
 *    without calls or side effects; those that do not depend on the
 *    thread and that nothing writes are computed once (unless they read
 *    memory after a statement or under the guard), those that nothing
 *    writes and that read no memory are declared again, the others get a
 *    slot per thread (their address may not be taken); statements before
 *    it run for every thread first, in order;
 *  - a guard: `if (cond) { ... }` without else, after declarations only,
 *    cond without memory reads, calls (but of pure functions) or side
 *    effects, nothing in the body writing what it reads; not around a
 *    strided loop;
 *  - no @shared variable is both written and read in the nest: threads
 *    that trade values through it (a warp's lanes reading each other)
 *    would see them in another order;
 *  - the loop has no unroll hint (#pragma unroll), unless it runs in tiles
 *    of rows and only updates the tile's values (and declares values of
 *    its iteration): unrolled as its author asked, what each thread
 *    accumulates stays in registers, which is faster than a slot per
 *    thread in memory (a tiled matrix product's k loop ran at half the
 *    speed interchanged without tiles); a loop that does more (updates an
 *    @exclusive array as well, bench/kernels' axHex3D) ran 1.2 times
 *    slower in tiles than as written;
 *  - the interchange pays (pays(), a cost estimate; the output says why
 *    where it does not): a strided slice of at most 16 threads with a sum
 *    stays as written, so does a loop of a few iterations unless it is all
 *    the thread does and keeps no sum, and, without tiles of rows, a loop
 *    that accumulates into a per-thread value reading only the block's own
 *    arrays (its sums stay in registers); so does a loop whose iterations
 *    divide alike by a value known only at run time, and one of fewer
 *    iterations than what splitting its thread's statements around it
 *    repeats or chains costs (split_work(): divisions both sides share,
 *    updates of one element by every thread). A strided slice with such
 *    work runs both ways, chosen in each block by the first thread's
 *    number of rounds (ROUNDS_PER_ITEM per item).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

enum { MAX_THREADS = 4096, MAX_DEPTH = 4, LONG_LOOP = 512, MAX_TERMS = 16 };

/* What a round of the threads saves against what splitting a thread's
 * statements around its loop costs per item of split_work(): interchanged,
 * the statements before and after the loop run in loops of their own, and
 * a division both have (`x[gi % N]`), which the compiler computes once per
 * thread as written, is computed in each; that costs what about 8 rounds
 * save (a slice of 24 threads, one division computed again, one core:
 * 1.46 times slower with 4 rounds, 0.91-0.99 with 8, 0.39-0.58 with 16),
 * and an update of one element by every thread about as much. */
enum { ROUNDS_PER_ITEM = 8 };
/* What those items are, for the decisions. */
static const char SPLIT_WORK[] = "dividing again by values known only at run time or updating "
                                 "one element thread after thread";

typedef struct Interchange {
    const Loop  *l;               /* the innermost @inner loop */
    const Loop  *levels[3];       /* the @inner nest, outermost first */
    size_t       nlevels;
    int64_t      threads;         /* their product */
    const Stmt  *all;             /* the innermost loop's { } */
    const Stmt  *guard;           /* `if (cond) { ... }` ending it, with f inside, or NULL */
    size_t       npre;            /* with a guard: the declarations before it */
    const Stmt  *body, *f;        /* the { } with f in it (all, or the guard's), the loop */
    size_t       at;              /* f's index in body */
    bool         strided;         /* f is `for (i = base + t; ...; i += T)`, in s */
    Strided      s;
    const char  *op, *end;        /* the condition: i op end */
    const Var  **slots;           /* declarations that get a slot per thread */
    size_t       nslots;
    const Var  **again;           /* per-thread values declared again in each loop */
    size_t       nagain;
    int64_t      rows;            /* threads of the next-to-innermost level per tile (0: none) */
    int64_t      narrow;          /* the same where the compiler does not target AVX-512 */
    int64_t      held;            /* vector registers the loop holds besides the tile */
    bool         wide_as_written; /* tiles only without AVX-512, as written with it
                                     (as_written_wide()) */
    const Stmt  *inner[MAX_DEPTH];/* tiles: loops that are f's whole body, nested (f's first) */
    size_t       ninner;
    const char  *from, *to;       /* the innermost threads' range inside f, narrowed by a
                                     guard ending f's body (oklc_cpu_guard_range), or NULL */
    const Loop  *pair;            /* tiles of two blocks: the @outer loop (pair_loop()) */
    const Var  **sums;            /* @exclusive values the loop accumulates into: in tiles,
                                     a local array of the tile's while the loop runs */
    size_t       nsums;
    bool         hinted;          /* f has an unroll hint */
    bool         gathered;        /* tiles refused: they would gather (gathers()) */
    bool         sums_only;       /* in tiles, the loop only updates the tile's values */
    const char **sum_at;          /* each one's thread's slot, rendered ("acc[tx + 16 * ty]") */
    struct Panel *panel;          /* the other operand packed per column of blocks, or NULL */
    const char  *prefetch;        /* statements first in each iteration of the loop, one
                                     per line (oklc_cpu_prefetch()), or "" */
    int64_t      least_rounds;    /* strided: interchanged only where the first thread has
                                     this many rounds (0: always; split_work()) */
    const char  *split;           /* what the split repeats or chains, for the output */
    const char  *as_written;      /* the nest as written, run where it has fewer */
} Interchange;

/* The operand of a tiled product that every row of blocks reads alike
 * (B[(kt + k) * N + bx * 16 + tx]: the tile loops' variables, the
 * innermost thread, the column of blocks), packed once per column. */
typedef struct Panel {
    const Loop *cols, *rows;      /* the @outer loops: columns of blocks (the nest's), rows */
    Range       read;             /* the read, its name to its ']' */
    const char *array;            /* its name */
    const char *index;            /* the tile loops' iteration number, as an expression */
    const char *count;            /* their number of iterations (long long), as an expression */
    const char *text;             /* the read as written */
} Panel;

static bool is_shared(const Var *v)
{
    return v->shared || (v->typedef_var && v->typedef_var->shared);
}

/* Is the use of v at r a plain write: `v[...] = ` (a compound assignment
 * or an increment reads too)? */
static bool plain_write(Cpu *C, Range r)
{
    const char *t = C->E->nz->text;
    uint32_t n = (uint32_t)C->E->nz->len, p = oklc_cpu_skip_blanks(t, r.end, n);
    while (p < n && t[p] == '[') {
        int depth = 0;
        for (; p < n; p++) {
            depth += t[p] == '[' ? 1 : t[p] == ']' ? -1 : 0;
            if (!depth)
                break;
        }
        p = oklc_cpu_skip_blanks(t, p + 1, n);
    }
    return p + 1 < n && t[p] == '=' && t[p + 1] != '=';
}

/* Do threads of the nest trade values through @shared memory: one it
 * both writes and reads (another thread's element, as a warp's lanes do)?
 * What it only reads was written before a barrier; what it only writes is
 * read after one. */
static bool trades_shared(Cpu *C, Range nest)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        size_t writes = 0, uses = 0;
        for (size_t j = 0; is_shared(v) && j < v->nrefs; j++) {
            if (!oklc_in_range(nest, v->refs[j].begin))
                continue;
            uses++;
            writes += plain_write(C, v->refs[j]);
        }
        if (writes && writes < uses)
            return true;
        if (writes && oklc_cpu_written_in(C, v, nest))
            return true;                          /* v = ... of the whole array */
    }
    return false;
}

/* cond is `n < end` or `n <= end`, end one operand free of calls, side
 * effects and memory reads. */
static bool upper_bound(Cpu *C, Interchange *x)
{
    const char *t = C->E->nz->text, *n = x->s.n;
    size_t len = strlen(n);
    uint32_t p = x->s.cond.begin, e = x->s.cond.end;
    if (e - p <= len || strncmp(t + p, n, len) || oklc_ident_char(t[p + len]))
        return false;
    p = oklc_cpu_skip_blanks(t, p + (uint32_t)len, e);
    if (p + 1 >= e || t[p] != '<' || t[p + 1] == '<')
        return false;
    x->op = t[p + 1] == '=' ? "<=" : "<";
    p = oklc_cpu_skip_blanks(t, p + (uint32_t)strlen(x->op), e);
    x->end = oklc_cpu_render(C, (Range){p, e});
    int depth = 0;
    for (const char *s = x->end; *s; s++) {
        depth += strchr("([{", *s) ? 1 : strchr(")]}", *s) ? -1 : 0;
        if (!depth && strchr("<>=&|^?,:", *s))
            return false;
    }
    return *x->end && oklc_cpu_pure(C, x->end, false);
}

/* Does the body write a variable the condition or the step reads (but
 * the element's)? */
static bool bound_changes(Cpu *C, const Interchange *x)
{
    const Kernel *k = C->k;
    const Var *n = oklc_cpu_for_var(C, x->f);
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (v != n && (oklc_refers_in(v, x->s.cond) || oklc_refers_in(v, x->s.step)) &&
            oklc_cpu_written_in(C, v, x->body->range))
            return true;
    }
    return false;
}

/* Does r use a declaration that gets a slot per thread? */
static bool uses_slots(const Interchange *x, Range r)
{
    for (size_t i = 0; i < x->nslots; i++)
        if (oklc_refers_in(x->slots[i], r))
            return true;
    return false;
}

/* Does r use a per-thread declaration (a slot, or declared again)? */
static bool uses_locals(const Interchange *x, Range r)
{
    for (size_t i = 0; i < x->nagain; i++)
        if (oklc_refers_in(x->again[i], r))
            return true;
    return uses_slots(x, r);
}

/* Statement i of those before the loop: the declarations before the
 * guard, then the statements before the loop in its { }. */
static const Stmt *before(const Interchange *x, size_t i)
{
    return i < x->npre ? x->all->kids[i] : x->body->kids[i - x->npre];
}

/* Is the initializer `init` oklc_cpu_pure()? An array's list in braces
 * (`= {0, 0}`) is as pure as what it lists. */
static bool pure_init(Cpu *C, const Var *v, const char *init, bool reads)
{
    size_t n = strlen(init);
    if (v->type.array && n >= 2 && init[0] == '{' && init[n - 1] == '}')
        init = oklc_arena_strndup(C->a, init + 1, n - 2);
    return oklc_cpu_pure(C, init, reads);
}

/* Sorts the declarations before the loop: computed once, declared again
 * in each loop over the threads (a per-thread value nothing writes, from
 * an initializer without memory reads: `const int col = bx * 16 + tx`,
 * which the compiler then sees as the thread's neighbouring column), or a
 * slot per thread. False when one cannot be any. */
static bool declarations(Cpu *C, Interchange *x)
{
    x->slots = oklc_arena_alloc(C->a, (C->k->nlocals + 1) * sizeof *x->slots);
    x->again = oklc_arena_alloc(C->a, (C->k->nlocals + 1) * sizeof *x->again);
    bool statements = false;    /* a statement before: memory may change */
    for (size_t i = 0; i < x->npre + x->at; i++) {
        const Stmt *d = before(x, i);
        if (d->kind != ST_DECL) {
            statements = true;
            continue;
        }
        for (size_t k = 0; k < d->ndecls; k++) {
            const Var *v = d->decls[k];
            const char *init = v->init_form ? oklc_cpu_render(C, v->init) : "";
            if ((v->init_form && v->init_form != '=') || v->static_ ||
                v->thread_local_ || strpbrk(v->type.spelling, "()") || is_shared(v) ||
                oklc_cpu_exclusive(v) || !pure_init(C, v, init, true))
                return false;
            Range after = {v->declarator_end, x->all->range.end};
            /* an array's elements may be written anywhere it is used */
            bool written = (v->type.array && !v->type.is_const && oklc_refers_in(v, after)) ||
                           oklc_cpu_written_in(C, v, after);
            /* memory read once, before everything: not after a statement,
             * nor under the guard (which may protect the read) */
            bool guarded = x->guard && i >= x->npre;
            bool once = !written && ((!statements && !guarded) || pure_init(C, v, init, false));
            for (size_t j = 0; once && j < x->nlevels; j++)
                once = !oklc_cpu_per_thread(C, v->init, x->levels[j]);
            once = once && !uses_locals(x, v->init);
            if (once)
                continue;
            /* a division by a value known only at run time gets a slot:
             * declared again, it would be computed in every loop */
            if (!written && v->init_form == '=' && pure_init(C, v, init, false) &&
                !uses_slots(x, v->init) && !oklc_cpu_divisions(C, v->init, NULL, 0)) {
                x->again[x->nagain++] = v;
                continue;
            }
            if (v->size <= 0 || v->size * x->threads > 64 * 1024)
                return false;                   /* the slots must fit in a stack frame */
            x->slots[x->nslots++] = v;
        }
    }
    return true;
}

static uint32_t blanks_before(const char *s, uint32_t from, uint32_t p)
{
    while (p > from && isspace((unsigned char)s[p - 1]))
        p--;
    return p;
}

/* Is the subscript opened at o an array's last ("[i]" in "s[j][i]", not
 * "[j]": neighbouring values of j are a row apart)? */
static bool last_subscript(const char *s, uint32_t o, uint32_t to)
{
    uint32_t q = oklc_cpu_skip_blanks(s, oklc_cpu_closing(s, o, to) + 1, to);
    return q >= to || s[q] != '[';
}

/* Is the use of the iterator at [b, e) a term added to an index (t, + t,
 * t +, t -, also in parentheses that are themselves added), not a factor,
 * divisor, shift, comparison operand or call argument? */
static bool added(const char *s, uint32_t from, uint32_t b, uint32_t e, uint32_t to)
{
    for (;;) {
        uint32_t p = blanks_before(s, from, b), q = oklc_cpu_skip_blanks(s, e, to);
        char before = p > from ? s[p - 1] : '(', after = q < to ? s[q] : ';';
        bool add_before = (before == '+' && !(p - 1 > from && s[p - 2] == '+')) ||
                          (before && strchr("([,", before)) ||
                          (before == '=' && !(p - 1 > from && strchr("=!<>", s[p - 2])));
        bool add_after = (after && strchr(")];,", after)) ||
                         ((after == '+' || after == '-') && q + 1 < to &&
                          !strchr("+-=>", s[q + 1]));
        if (!add_before || !add_after)
            return false;
        /* the bracket around the term: a subscript ends the climb */
        uint32_t o = b;
        int depth = 0;
        for (; o > from; o--) {
            char c = s[o - 1];
            if (c == ')' || c == ']')
                depth++;
            else if ((c == '(' || c == '[') && depth)
                depth--;
            else if (c == '(' || c == '[' || (!depth && strchr(";{}", c)))
                break;
        }
        if (o == from || s[o - 1] != '(')
            return true;                            /* a subscript's, a statement's term */
        uint32_t k = blanks_before(s, from, o - 1);
        if (k > from && (oklc_ident_char(s[k - 1]) || s[k - 1] == ']' || s[k - 1] == ')'))
            return false;                           /* an argument, a condition */
        b = o - 1;                                  /* the group, as a term */
        e = oklc_cpu_closing(s, o - 1, to) + 1;
    }
}

/* Is each use of v in r an added term? Counts them. */
static bool only_added(Cpu *C, const Var *v, Range r, size_t *uses)
{
    const char *t = C->E->nz->text;
    for (size_t i = 0; v && i < v->nrefs; i++) {
        Range u = v->refs[i];
        if (!oklc_in_range(r, u.begin) || u.begin == v->name_off)
            continue;
        if (!added(t, r.begin, u.begin, u.end, r.end))
            return false;
        ++*uses;
    }
    return true;
}

/* Does the loop f's body reach the threads' neighbouring elements: the
 * innermost thread t used only as an added term, at least once? A value
 * declared again from t as an added term (col = bx * 16 + t) counts as t;
 * one computed from t otherwise (t * 2) may not appear in the body. */
static bool neighbours(Cpu *C, const Interchange *x)
{
    const Var *it = oklc_cpu_iter_var(C, x->l);
    Range body = x->f->kids[x->f->nkids - 1]->range;
    size_t uses = 0;
    if (!it || !only_added(C, it, body, &uses))
        return false;
    enum { FREE, LIKE, OTHER } *kind = oklc_arena_alloc(C->a, (x->nagain + 1) * sizeof *kind);
    for (size_t i = 0; i < x->nagain; i++) {
        const Var *v = x->again[i];
        size_t from = 0;
        bool added_only = only_added(C, it, v->init, &from), other = false;
        for (size_t j = 0; j < i; j++) {
            if (kind[j] == LIKE)
                added_only &= only_added(C, x->again[j], v->init, &from);
            other |= kind[j] == OTHER && oklc_refers_in(x->again[j], v->init);
        }
        kind[i] = other || !added_only ? OTHER : from ? LIKE : FREE;
        if (kind[i] == OTHER && oklc_refers_in(v, body))
            return false;
        if (kind[i] == LIKE && !only_added(C, v, body, &uses))
            return false;
    }
    return uses > 0;
}

/* Is the header of the plain for f the same for every thread and
 * unchanged by the body of the thread's loop? */
static bool same_header(Cpu *C, const Interchange *x, const Stmt *f)
{
    if (f->kind != ST_FOR || f->loop || !f->nkids)
        return false;
    for (size_t i = 0; i < x->nlevels; i++)
        if (oklc_cpu_per_thread(C, f->head, x->levels[i]))
            return false;
    const Var *k = oklc_cpu_for_var(C, f);
    Range body = f->kids[f->nkids - 1]->range;
    if (!k || oklc_cpu_written_in(C, k, body) || uses_locals(x, f->head))
        return false;
    const Kernel *kn = C->k;
    for (size_t i = 0; i < kn->nlocals + kn->nparams; i++) {
        const Var *v = i < kn->nlocals ? kn->locals[i] : kn->params[i - kn->nlocals];
        if (v != k && oklc_refers_in(v, f->head) && oklc_cpu_written_in(C, v, x->body->range))
            return false;
    }
    const char *head = oklc_cpu_render(C, f->head);
    const char *cond = strchr(head, ';'), *step = cond ? strchr(cond + 1, ';') : NULL;
    return step &&
           oklc_cpu_pure(C, oklc_arena_strndup(C->a, cond + 1, (size_t)(step - cond - 1)), false);
}

/* A per-thread loop of another form: its header the same for every thread
 * and unchanged by its body, which reaches neighbouring elements. */
static bool counted(Cpu *C, const Interchange *x)
{
    return same_header(C, x, x->f) && neighbours(C, x);
}

/* Tiles: the loops that are the whole body of f, one inside the other
 * (`for (kt...) { for (k = 0; k < 16; ++k) ... }`), each with a header of
 * the same kind: they all run outside the tile's threads, which then
 * reach neighbouring elements in the innermost. An unroll hint on one is
 * dropped: written for a thread's body, it would unroll the tile's rows
 * again (measured: 0.95 of the expert's product with it, 1.0 without). */
static void inner_loops(Cpu *C, Interchange *x)
{
    x->inner[0] = x->f;
    x->ninner = 1;
    for (const Stmt *f = x->f; x->ninner < MAX_DEPTH;) {
        const Stmt *b = f->kids[f->nkids - 1], *g;
        while (b->kind == ST_COMPOUND && b->nkids == 1)
            b = b->kids[0];
        g = b->kind == ST_OTHER && b->nkids == 1 ? b->kids[0] : b;
        if (!same_header(C, x, g))
            return;
        x->inner[x->ninner++] = f = g;
    }
}

/* A level of the nest: counting up from 0 by 1 over a known count. */
static bool level(const Loop *l)
{
    return l->kind == LOOP_INNER && !l->tile_part && !l->down && l->analyzed &&
           !strcmp(l->stride, "1") && !strcmp(l->start, "0") && l->trips_known &&
           l->ntrips > 0 && l->node && l->node->nkids;
}

/* Is loop l's body the loop `kid` and nothing else? */
static bool only(const Loop *l, const Loop *kid)
{
    const Stmt *b = l->node->kids[l->node->nkids - 1];
    if (b->kind == ST_COMPOUND && b->nkids == 1)
        b = b->kids[0];
    return l->nkids == 1 && b->range.begin == kid->stmt.begin;
}

/* The @inner nest around l, perfectly nested, outermost first. */
static bool nest(const Loop *l, Interchange *x)
{
    const Loop *in[3];
    size_t n = 0;
    x->threads = 1;
    for (const Loop *p = l; p; p = p->parent) {
        if (p->kind != LOOP_INNER)
            continue;
        if (n == 3 || !level(p) || (n && !only(p, in[n - 1])))
            return false;
        x->threads *= p->ntrips;
        in[n++] = p;
    }
    for (size_t i = 0; i < n; i++)
        x->levels[i] = in[n - 1 - i];
    x->nlevels = n;
    return x->threads <= MAX_THREADS;
}

/* Is st a plain for loop (not an OKL loop), and has it an unroll hint:
 * `#pragma unroll` (Clang's attributed statement around it) or @unroll? */
static bool is_for(Cpu *C, const Stmt *st, bool *hinted)
{
    *hinted = st->kind == ST_OTHER && st->nkids == 1;
    if (*hinted)
        st = st->kids[0];
    for (size_t i = 0; i < C->k->nloops; i++)
        if (C->k->loops[i]->unroll && C->k->loops[i]->stmt.begin == st->range.begin)
            *hinted = true;
    return st->kind == ST_FOR && (!st->loop || st->loop->kind == LOOP_REGULAR);
}

/* Does a thread keep an array in a slot? Its elements stay in memory
 * (`s[t][v]`): no tile or unrolling keeps them in registers. */
static bool array_slots(const Interchange *x)
{
    for (size_t i = 0; i < x->nslots; i++)
        if (x->slots[i]->type.array)
            return true;
    return false;
}

/* The size of a value the threads keep: slot i, or sum i - nslots. */
static int64_t value_size(const Interchange *x, size_t i)
{
    return i < x->nslots ? x->slots[i]->size : x->sums[i - x->nslots]->size;
}

/* The bytes of a row of threads' slots. */
static int64_t row_bytes(const Interchange *x)
{
    int64_t bytes = 0;
    for (size_t i = 0; i < x->nslots; i++)
        bytes += x->slots[i]->size * x->l->ntrips;
    for (size_t i = 0; i < x->nsums; i++)
        bytes += x->sums[i]->size * x->l->ntrips;
    return bytes;
}

/* Is the use at [b, e) inside a subscript other than an array's last
 * ("j" in "s[j][i]")? */
static bool inner_subscript(const char *s, uint32_t from, uint32_t b, uint32_t to)
{
    int depth = 0;
    for (uint32_t o = b; o > from; o--) {
        char c = s[o - 1];
        if (c == ')' || c == ']')
            depth++;
        else if ((c == '(' || c == '[') && depth)
            depth--;
        else if (c == '[')
            return !last_subscript(s, o - 1, to);
        else if (!depth && strchr(";{}", c))
            break;
    }
    return false;
}

/* Does the loop's body read or write elements the innermost threads
 * reach a row apart (their iterator, or a value declared again from it,
 * in a subscript other than the last: `s_D[i][m]`)? In a tile they would
 * be gathered, one load per thread; as written, the thread's own loop
 * walks that row in order (a dot product the compiler vectorises along
 * m: a spectral-element gradient ran 5 times slower in tiles). A read of
 * a transposed copy (cpu_transpose.c) reaches neighbouring elements. */
static bool gathers(Cpu *C, const Interchange *x)
{
    const char *t = C->E->nz->text;
    Range body = x->f->kids[x->f->nkids - 1]->range;
    const Var *it = oklc_cpu_iter_var(C, x->l);
    for (size_t i = 0; it && i <= x->nagain; i++) {
        const Var *v = i < x->nagain ? x->again[i] : it;
        if (v != it && !oklc_refers_in(it, v->init))
            continue;
        for (size_t j = 0; j < v->nrefs; j++)
            if (oklc_in_range(body, v->refs[j].begin) &&
                inner_subscript(t, body.begin, v->refs[j].begin, body.end) &&
                !oklc_cpu_transposed_at(C, v->refs[j].begin))
                return true;
    }
    return false;
}

/* Is the statement st (of the loop's body) only updates of values the
 * threads keep (`c += a * b`, c a slot or an @exclusive sum) and
 * declarations, in blocks and plain loops? */
static bool accumulates(Cpu *C, const Interchange *x, const Stmt *st)
{
    if (st->kind == ST_OTHER && st->nkids == 1 && st->kids[0]->kind == ST_FOR)
        st = st->kids[0];               /* a loop under `#pragma unroll` */
    if (st->kind == ST_COMPOUND || (st->kind == ST_FOR && !st->loop)) {
        size_t from = st->kind == ST_FOR ? st->nkids - 1 : 0;
        for (size_t i = from; i < st->nkids; i++)
            if (!accumulates(C, x, st->kids[i]))
                return false;
        return st->nkids > 0;
    }
    if (st->kind == ST_DECL)
        return true;                    /* values of the iteration */
    if (st->kind != ST_EXPR)
        return false;
    const char *t = C->E->nz->text;
    uint32_t b = st->range.begin, e = st->range.end, p = b;
    while (p < e && oklc_ident_char(t[p]))
        p++;
    bool kept = false;
    for (size_t i = 0; i < x->nslots + x->nsums && !kept; i++) {
        const Var *v = i < x->nslots ? x->slots[i] : x->sums[i - x->nslots];
        kept = p - b == strlen(v->name) && !strncmp(t + b, v->name, p - b);
    }
    p = oklc_cpu_skip_blanks(t, p, e);
    return kept && p + 1 < e && strchr("+-*", t[p]) && t[p + 1] == '=';
}

/* A register tile's bytes: 16 vector registers, of AVX-512 (of 64 bytes)
 * and of AVX2 (32 bytes; tile_rows()). */
enum { TILE_BYTES = 1024, TILE_BYTES_AVX2 = 512, VECTOR_BYTES = 64, VECTOR_BYTES_AVX2 = 32 };

/* Does r use one of the nest's threads: a level's iterator, a value
 * declared again from them, a per-thread value (a slot)? */
static bool per_thread(Cpu *C, const Interchange *x, Range r)
{
    for (size_t i = 0; i < x->nlevels; i++)
        if (oklc_cpu_uses(oklc_cpu_iter_var(C, x->levels[i]), r))
            return true;
    for (size_t i = 0; i < x->nagain + x->nslots; i++)
        if (oklc_cpu_uses(i < x->nagain ? x->again[i] : x->slots[i - x->nagain], r))
            return true;
    return false;
}

/* The vector registers that the tile's loop holds besides the tile:
 * the elements its body reads alike for every thread (`s_D[k][m]`, no
 * thread in the subscripts), one register each, a copy per iteration
 * where the loop is unrolled (the compiler loads them all ahead, out of
 * the loop over the tile's rows). A spectral-element gradient's three
 * sums over m, unrolled 8 times, in tiles of 2 rows (12 sums and 8 such
 * values in AVX2's 16 registers) ran 0.63-0.74 of the expert's in the
 * cache, in tiles of 1 row 0.82-0.85. */
static int64_t held_vectors(Cpu *C, const Interchange *x, int64_t unrolled)
{
    const Kernel *k = C->k;
    Range body = x->f->kids[x->f->nkids - 1]->range;
    int64_t held = 0;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (oklc_cpu_exclusive(v) || !(v->type.array || v->type.pointer))
            continue;
        size_t j = oklc_cpu_first_at(v->refs, v->nrefs, sizeof *v->refs, body.begin);
        for (; j < v->nrefs && v->refs[j].begin < body.end; j++) {
            Range sub[3];
            uint32_t end = 0;
            size_t n = oklc_cpu_subscripts(C, v->refs[j].end, sub, 3, &end);
            if (n && !per_thread(C, x, (Range){v->refs[j].end, end}) &&
                !oklc_cpu_assigned_at(C, oklc_cpu_skip_blanks(C->E->nz->text, end, body.end)))
                held += unrolled;
        }
    }
    return held;
}

/* The most rows of `bytes` each, 8, 4, 2 or 1 (`least`), dividing
 * `count`, within `budget` bytes (0: none). */
static int64_t rows_within(int64_t count, int64_t bytes, int64_t budget, int64_t least)
{
    for (int64_t rows = 8; rows >= least; rows /= 2)
        if (count % rows == 0 && rows * bytes <= budget)
            return rows;
    return 0;
}

/* Rows of threads of the next-to-innermost level that run together in a
 * tile (0: none): where the threads keep values across the loop, the
 * tile's values (rows x the innermost count) can stay in registers while
 * the loop runs; 8, 4 or 2 rows that divide the level's count, within
 * 1 KiB of values (16 of AVX-512's vector registers). Not where the loop
 * does not use the values, where it gathers (gathers()), or where the body
 * writes a thread's iterator (the tile declares them). x->narrow: the
 * rows within 16 vector registers of AVX2 (512 bytes; at least one row),
 * which the output takes where the compiler does not target AVX-512: 8
 * rows of 16 doubles would need 32 of AVX2's 16 registers, and compiled
 * for AVX2 the staged product of doubles (1536^2) ran 1.74 times faster
 * in tiles of 4 rows (233 against 405 ms), where with AVX-512 8 rows won
 * (95 against 132 ms). */
static int64_t tile_rows(Cpu *C, Interchange *x)
{
    if (x->nlevels < 2 || array_slots(x) ||
        (!x->nsums && !uses_slots(x, x->f->kids[x->f->nkids - 1]->range)))
        return 0;
    if ((x->gathered = gathers(C, x)))
        return 0;
    int64_t bytes = row_bytes(x);
    for (size_t i = 0; i < x->nlevels; i++)
        if (oklc_cpu_written_in(C, oklc_cpu_iter_var(C, x->levels[i]), x->all->range))
            return 0;
    int64_t count = x->levels[x->nlevels - 2]->ntrips;
    /* unrolled: by its hint, or by tile_loop() */
    x->held = held_vectors(C, x, x->f->trips > 0 && x->f->trips <= 32 ? x->f->trips : 1);
    x->narrow = rows_within(count, bytes, TILE_BYTES_AVX2 - x->held * VECTOR_BYTES_AVX2, 1);
    return rows_within(count, bytes, TILE_BYTES - x->held * VECTOR_BYTES, 2);
}

/* With AVX-512, does the nest run better as written than in tiles? Where
 * the tile's loop reads values alike for every thread (x->held), the
 * author's hint unrolls it whole and a row of each value the threads keep
 * is one whole vector (64 bytes): as written, the compiler vectorises each
 * row of threads once the loop is unrolled, the row's sums in registers
 * already, and tiles only add the values alike for every row, loaded
 * ahead and spilled. The spectral-element gradient of doubles
 * (bench/compare), one core, AMD Zen 5, against the plain translation: as
 * written 1.03-1.12 from memory, 1.05-1.08 in the caches; in tiles of 2
 * rows 0.89-0.93, of 1 row 0.93-0.98. A shorter row runs as written at a
 * fraction of the vector, which tiles of several rows fill: the same
 * gradient of floats (tests/run/blocks.okl; rows of 32 bytes) ran 1.04-1.12
 * in tiles of 4 rows, 0.95-0.98 as written. With AVX2 (16 registers of 32
 * bytes: a row of 8 doubles is two) tiles of 1 row ran 1.05-1.16 faster
 * than as written (AMD Zen 3): they stay there. */
static bool as_written_wide(Cpu *C, const Interchange *x)
{
    if (!x->held || !x->hinted || x->f->trips <= 0 || x->f->trips > 32)
        return false;
    Hint h = oklc_cpu_unroll_hint(C, x->f);
    if (h.at == UINT32_MAX || !h.count || (*h.count && strtoll(h.count, NULL, 10) < x->f->trips))
        return false;
    for (size_t i = 0; i < x->nslots + x->nsums; i++)
        if (value_size(x, i) * x->l->ntrips != VECTOR_BYTES)
            return false;
    return true;
}

/* "8 rows" or "8 rows (4 without AVX-512)", for comments. */
static const char *tiles_of(Cpu *C, const Interchange *x)
{
    return oklc_arena_printf(C->a, "%lld row%s%s", (long long)x->rows, x->rows > 1 ? "s" : "",
                             x->narrow == x->rows
                                 ? ""
                                 : oklc_arena_printf(C->a, " (%lld without AVX-512)",
                                                     (long long)x->narrow));
}

/* The registers the tile leaves to other values (held_vectors()), for
 * comments: "" if none. */
static const char *held_text(Cpu *C, const Interchange *x)
{
    return x->held ? oklc_arena_printf(C->a, " (%lld vector registers left to values every "
                                             "thread reads alike)",
                                       (long long)x->held)
                   : "";
}

/* Where the nest stays as written with AVX-512 (as_written_wide()), the
 * two sides of the choice, for comments: before "in tiles" and after it. */
static const char *without_wide(const Interchange *x)
{
    return x->wide_as_written ? " without AVX-512" : "";
}

static const char *as_written_text(const Interchange *x)
{
    return x->wide_as_written ? "; as written with AVX-512: the author's hint unrolls the loop "
                                "whole and a row of each sum is one whole vector, which the "
                                "compiler keeps in registers as written"
                              : "";
}

/* The tile's rows in the output: the preprocessor chooses (x->narrow). */
static const char *rows_text(Cpu *C, const Interchange *x)
{
    if (x->narrow == x->rows)
        return oklc_arena_printf(C->a, "%lld", (long long)x->rows);
    return oklc_arena_printf(C->a, "_occa_tile_rows(%lld, %lld)", (long long)x->rows,
                             (long long)x->narrow);
}

/* The body ends with `if (cond) { ... }` (no else) after declarations
 * only, the loop inside: the threads for which cond is false do nothing
 * else (a guard of the threads past the data's end: `if (row < N && col
 * < N)`). cond is evaluated in each loop over the threads: no memory
 * read, side effect or call (but of a pure function), nothing it reads
 * written in the body. */
static bool guarded(Interchange *x)
{
    const Stmt *all = x->all, *g = all->nkids ? all->kids[all->nkids - 1] : NULL;
    if (!g || g->kind != ST_IF || g->nkids != 1 || g->kids[0]->kind != ST_COMPOUND)
        return false;
    for (size_t i = 0; i + 1 < all->nkids; i++)
        if (all->kids[i]->kind != ST_DECL)
            return false;
    x->guard = g;
    x->npre = all->nkids - 1;
    x->body = g->kids[0];
    return true;
}

/* Is the guard's condition one `guarded` allows? */
static bool guard_holds(Cpu *C, const Interchange *x)
{
    Range cond = x->guard->head;
    if (!oklc_cpu_pure(C, oklc_cpu_render(C, cond), false) || uses_slots(x, cond))
        return false;
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        Range after = {v->declarator_end > x->all->range.begin ? v->declarator_end
                                                               : x->all->range.begin,
                       x->all->range.end};
        if (oklc_refers_in(v, cond) && oklc_cpu_written_in(C, v, after))
            return false;
    }
    return true;
}

/* The statement st stands for: its loop under `#pragma unroll`. */
static const Stmt *unwrapped(const Stmt *st)
{
    return st->kind == ST_OTHER && st->nkids == 1 ? st->kids[0] : st;
}

/* The iterations of the plain loop st and of every loop in it, all of
 * constant counts of at most 16 (GCC's complete peeling at -O3), in all;
 * -1 if one's count is unknown (Clang's, up to 64) or larger, or st holds
 * a while or do loop. */
static int64_t whole_count(const Stmt *st)
{
    st = unwrapped(st);
    if (st->kind == ST_WHILE || st->kind == ST_DO)
        return -1;
    int64_t n = 1;
    if (st->kind == ST_FOR) {
        if (st->loop || st->trips < 0 || st->trips > 16)
            return -1;
        n = st->trips;
    }
    for (size_t i = st->kind == ST_FOR ? st->nkids - 1 : 0; i < st->nkids && n >= 0; i++) {
        int64_t in = whole_count(st->kids[i]);
        n = in < 0 ? -1 : n * (in ? in : 1);
    }
    return n;
}

/* A loop of at most 16 iterations in all (`for (v = 0; v < 4; ++v)
 * s[v] = 0;`), which the compiler unrolls where it stands. */
static bool short_loop(const Stmt *st)
{
    int64_t n = whole_count(st);
    return n >= 0 && n <= 16;
}

/* A loop whose count the compiler does not know (Stmt.trips stops at
 * 64; its header read as an OKL loop's says more). */
static bool unknown_count(const Stmt *st)
{
    st = unwrapped(st);
    return st->trips < 0 && (!st->plain || !st->plain->trips_known);
}

/* The index of the thread's loop in `body`'s statements (their count if
 * none): the first plain for loop; where that one is short (short_loop())
 * and the next that is not has a count known only at run time, that next
 * one, which holds the thread's work (a column sum whose sums are set to
 * zero in a loop of 4 first, bench/kernels' columnSums4: the loop over
 * the rows interchanged ran 10-11 times faster on one core). A next one
 * of a known count stays where it is (as written the compiler unrolls or
 * vectorises it there). *hinted: the loop has an unroll hint. */
static size_t first_for(Cpu *C, const Stmt *body, bool past_short, bool *hinted)
{
    size_t first = body->nkids;
    bool first_hinted = false;
    for (size_t at = 0; at < body->nkids; at++) {
        if (!is_for(C, body->kids[at], hinted))
            continue;
        if (first == body->nkids) {
            first = at;
            first_hinted = *hinted;
        }
        if (!short_loop(body->kids[at])) {
            if (past_short && at != first && unknown_count(body->kids[at]))
                return at;
            break;
        }
    }
    *hinted = first_hinted;
    return first;
}

/* Are the @exclusive values the loop's body uses all scalars (their slot
 * first: exclusive_var, cpu.c) that it writes? Then they are x->sums,
 * each one's slot rendered before the tiles replace its uses in the body.
 * (A tile loads them after the thread's statements before the loop and
 * stores them before those after it, which use the slots.) */
static bool tileable_sums(Cpu *C, Interchange *x)
{
    const Kernel *k = C->k;
    Range body = x->f->kids[x->f->nkids - 1]->range;
    x->sums = oklc_arena_alloc(C->a, (k->nlocals + 1) * sizeof *x->sums);
    x->sum_at = oklc_arena_alloc(C->a, (k->nlocals + 1) * sizeof *x->sum_at);
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        if (!oklc_cpu_exclusive(v) || !oklc_refers_in(v, body))
            continue;
        if (v->type.array || v->size <= 0 || !oklc_cpu_written_in(C, v, body))
            return false;
        const Range *at = NULL;
        for (size_t j = 0; j < v->nrefs && !at; j++)
            if (oklc_in_range(body, v->refs[j].begin))
                at = &v->refs[j];
        x->sum_at[x->nsums] = oklc_cpu_render(C, *at);
        x->sums[x->nsums++] = v;
    }
    return true;
}

/* The @inner loop l as an Interchange, or false when it does not
 * qualify; the thread's loop one past short ones or not (first_for()).
 * Past them only to a counted loop: a strided slice after a loop of one
 * iteration (a random kernel of tests/diff, 8 rounds per thread) ran 1.16
 * times slower interchanged on two OpenMP threads. */
static bool qualifies_past(Cpu *C, const Loop *l, Interchange *x, bool past_short)
{
    *x = (Interchange){.l = l};
    if (l->kind != LOOP_INNER || l->nkids || !nest(l, x) ||
        oklc_cpu_in_split(C, x->levels[0]->stmt.begin))
        return false;
    x->all = x->body = l->node->kids[l->node->nkids - 1];
    if (x->all->kind != ST_COMPOUND || oklc_cpu_has_jump(x->all, true) ||
        trades_shared(C, x->all->range))
        return false;
    bool hinted = false;
    x->at = first_for(C, x->body, past_short, &hinted);
    if (x->at == x->body->nkids && guarded(x))
        x->at = first_for(C, x->body, past_short, &hinted);
    if (x->at == x->body->nkids || !declarations(C, x))
        return false;
    x->f = x->body->kids[x->at];
    if (x->f->kind == ST_OTHER)
        x->f = x->f->kids[0];           /* the loop under `#pragma unroll` */
    /* not a trip count of each thread's own, a guard that cannot be evaluated again */
    if (uses_locals(x, x->f->head) || (x->guard && !guard_holds(C, x)))
        return false;
    x->strided = x->nlevels == 1 && !x->guard && !hinted &&
                 oklc_cpu_strided(C, l, x->f, &x->s);
    bool first_hinted = false;
    if (x->strided && past_short && x->at != first_for(C, x->body, false, &first_hinted))
        return qualifies_past(C, l, x, false);
    if (!x->strided) {
        if (!counted(C, x))
            return false;
        if (!tileable_sums(C, x))
            x->nsums = 0;               /* the sums stay in their slots */
        x->rows = tile_rows(C, x);
        x->hinted = hinted;
        if (x->rows && x->narrow && as_written_wide(C, x)) {
            x->wide_as_written = true;
            x->rows = x->narrow;
        }
        if (x->rows)
            inner_loops(C, x);
        x->sums_only = x->rows && accumulates(C, x, x->f->kids[x->f->nkids - 1]);
        /* an unrolled loop keeps its values in registers: in tiles only
         * where it does nothing else (see tiles()) */
        return hinted ? x->sums_only : true;
    }
    Range step = x->s.step;
    return upper_bound(C, x) && !bound_changes(C, x) && !oklc_cpu_per_thread(C, x->s.cond, l) &&
           !oklc_cpu_per_thread(C, step, l) && oklc_cpu_pure(C, oklc_cpu_render(C, step), false);
}

static bool qualifies(Cpu *C, const Loop *l, Interchange *x)
{
    return qualifies_past(C, l, x, true);
}

/* Does the body update an element of the array v that the next iteration
 * of the loop (iterator `own`) updates again: `v[w] += ...` (a compound
 * assignment or an increment), no subscript of it the loop's iterator? A
 * plain store, or one of an element of the iteration's own (`v[k] += `),
 * carries nothing across iterations. */
static bool elements_carried(Cpu *C, const Var *v, Range body, const Var *own)
{
    for (size_t i = 0; i < v->nrefs; i++) {
        Range sub[8];
        uint32_t end = 0;
        size_t n = oklc_in_range(body, v->refs[i].begin)
                       ? oklc_cpu_subscripts(C, v->refs[i].end, sub, 8, &end)
                       : 0;
        bool updated = oklc_cpu_written_at(C, v->refs[i]) ||    /* ++v[w], &v[w] */
                       (oklc_cpu_assigned_at(C, end) && !plain_write(C, v->refs[i]));
        if (!n || !updated)
            continue;
        bool own_element = false;
        for (size_t d = 0; d < n && !own_element; d++)
            own_element = oklc_cpu_uses(own, sub[d]);
        if (!own_element)
            return true;
    }
    return false;
}

/* Does the loop write a value each thread keeps across its iterations
 * (an @exclusive value, an element of an @exclusive array updated in
 * every iteration, or a local with a slot)? */
static bool carries_sums(Cpu *C, const Interchange *x, Range body)
{
    const Kernel *k = C->k;
    const Var *own = oklc_cpu_for_var(C, x->f);
    for (size_t i = 0; i < k->nlocals; i++) {
        const Var *v = k->locals[i];
        bool carried = oklc_cpu_exclusive(v);
        for (size_t j = 0; j < x->nslots && !carried; j++)
            carried = x->slots[j] == v;
        if (carried && (oklc_cpu_written_in(C, v, body) ||
                        (v->type.array && elements_carried(C, v, body, own))))
            return true;
    }
    return false;
}

/* Is r alike for every thread of the nest: no thread's index, slot or
 * @exclusive value in it, nor a local declared in the nest (`i = r + t`)
 * or written there? The loop's own iterator, the arguments and the locals
 * of the block before the nest are alike. */
static bool alike(Cpu *C, const Interchange *x, Range r)
{
    if (per_thread(C, x, r) || oklc_cpu_per_thread(C, r, x->l))
        return false;
    const char *t = C->E->nz->text;
    const Var *own = oklc_cpu_for_var(C, x->f);
    Range nest = x->levels[0]->stmt;
    for (uint32_t p = r.begin; p < r.end; p++) {
        if (!oklc_ident_char(t[p]) || (p > r.begin && oklc_ident_char(t[p - 1])))
            continue;
        const Var *v = oklc_cpu_var_at(C, p);
        if (v && v != own && v->kind != VAR_PARAM &&
            (oklc_in_range(nest, v->name_off) || oklc_cpu_written_in(C, v, nest)))
            return false;
    }
    return true;
}

/* Does the body read the kernel's arguments at elements of the threads
 * (a subscript not alike() for every thread: the threads' neighbouring
 * elements, one pass over them interchanged)? A read alike for every
 * thread (`w[j + R]`, a filter's weight) is one load per iteration either
 * way; a use without subscripts counts. */
static bool reads_threads_arguments(Cpu *C, const Interchange *x, Range body)
{
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *v = k->params[i];
        if (!(v->type.pointer || v->type.array))
            continue;
        for (size_t j = 0; j < v->nrefs; j++) {
            Range sub[8];
            uint32_t end = 0;
            if (!oklc_in_range(body, v->refs[j].begin))
                continue;
            if (!oklc_cpu_subscripts(C, v->refs[j].end, sub, 8, &end) ||
                !alike(C, x, (Range){v->refs[j].end, end}))
                return true;
        }
    }
    return false;
}

/* May the threads keep their arrays in slots? NULL when they may, else
 * why not. The arrays are of numbers (a column sum's sums) that the loop
 * uses, and all of them fit in 32 KiB (the first-level cache). As
 * written, a thread's arrays live in its registers or its stack frame; in
 * slots, every use goes to memory, which only the loop's interchange can
 * pay for: an array used only before or after the loop (a random kernel
 * of tests/diff whose zeroed `w[4]` the compiler folded away as written,
 * its grid-stride loop one round long, ran 1.09-1.11 times slower
 * interchanged on one core), or a thread whose many arrays serve its work
 * after a short loop that sets some of them (a discontinuous Galerkin
 * volume kernel: 10 arrays of 10 values for 120 threads, 94 KiB), stays
 * as written. An array of pointers (a time
 * stepper's stages, `rhsqi[i][id + f * Np]`) makes the threads' loop read
 * through each thread's own pointers, which the compiler cannot
 * vectorise: interchanged, bench/kernels' stagesUpdate ran 0.77-0.78 of
 * the plain translation's speed on one core (1.3-1.5 on two OpenMP
 * threads: one rule for both, never slower). */
static const char *arrays_kept(Cpu *C, const Interchange *x)
{
    int64_t bytes = 0;
    for (size_t i = 0; i < x->nslots; i++) {
        const Var *v = x->slots[i];
        if (!v->type.array)
            continue;
        if (!oklc_refers_in(v, x->f->range))
            return oklc_arena_printf(C->a, "the array %s, which the loop does not use, would "
                                           "go from each thread's registers to memory",
                                     v->name);
        if (strchr(v->type.spelling, '*'))
            return oklc_arena_printf(C->a, "interchanged with the threads, the loop would read "
                                           "through each thread's own pointers (the array %s), "
                                           "which the compiler does not vectorise",
                                     v->name);
        bytes += v->size * x->threads;
    }
    if (bytes > 32 * 1024)
        return oklc_arena_printf(C->a, "the threads' arrays would take %lld KiB of memory, more "
                                       "than the first-level cache",
                                 (long long)(bytes / 1024));
    return NULL;
}

/* Is the identifier `name` in text s? */
static bool names(const char *s, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(s, name); p; p = strstr(p + 1, name))
        if ((p == s || !oklc_ident_char(p[-1])) && !oklc_ident_char(p[n]))
            return true;
    return false;
}

/* The divisions by values known only at run time in the loop's body that
 * are the same in every iteration (nothing the loop writes in them), as
 * a list for the output ("" if none): as written the compiler computes
 * each once per thread, before the loop; interchanged, each iteration
 * computes it for every thread. */
static const char *invariant_divisions(Cpu *C, const Interchange *x)
{
    const char *div[MAX_TERMS], *s = "";
    size_t n = oklc_cpu_divisions(C, x->f->kids[x->f->nkids - 1]->range, div, MAX_TERMS);
    for (size_t i = 0; i < n && i < MAX_TERMS; i++) {
        bool same = true;
        for (size_t k = 0; same && k < C->k->nlocals; k++) {
            const Var *v = C->k->locals[k];
            same = !names(div[i], v->name) || !oklc_cpu_written_in(C, v, x->f->range);
        }
        if (same)
            s = oklc_arena_printf(C->a, "%s%s%s", s, *s ? ", " : "", div[i]);
    }
    return s;
}

/* Is a an atomic update of one element for every thread (its index uses
 * neither a thread's index nor a value of the thread's), in the thread's
 * statements before or after the loop? As written, each thread's update
 * runs among its other work; interchanged, the threads' updates run back
 * to back in a loop of their own, each waiting for the one before it
 * through memory (`out[K] += v`, a slice of 32 threads, one core: 1.97
 * times slower with one round, 1.23 with 4, 0.81 with 8; into an element
 * per thread, 0.28-0.51). */
static bool one_element(Cpu *C, const Interchange *x, const Atomic *a)
{
    Range r = x->all->range;
    if (a->block || !oklc_in_range(r, a->stmt.begin) ||
        oklc_in_range(x->f->range, a->stmt.begin))
        return false;
    for (size_t j = 0; j < x->nlevels; j++)
        if (oklc_cpu_per_thread(C, a->lhs, x->levels[j]))
            return false;
    for (size_t k = 0; k < C->k->nlocals; k++)
        if (oklc_in_range(r, C->k->locals[k]->name_off) && oklc_cpu_uses(C->k->locals[k], a->lhs))
            return false;                       /* a value of the thread's */
    return true;
}

/* What splitting the thread's statements around the loop repeats or
 * chains. The divisions by values known only at run time that the
 * statements before the loop and those after it share: the same text in
 * both (as written the compiler computes it once per thread;
 * interchanged, the statements before and after run in loops of their
 * own, each computing it), or a value declared before the loop, from
 * one, and used after it (kept in a slot per thread: the loop after it
 * reads back what a loop of scalar divisions stored, which costs as much,
 * 2 times slower with one round, as fast with 8); with them, each atomic
 * update of one element for every thread there (one_element(): it costs
 * about as much). Their number; *list, for the output. */
static size_t split_work(Cpu *C, const Interchange *x, const char **list)
{
    const char *pre[MAX_TERMS], *post[MAX_TERMS];
    Range after = {x->f->range.end, x->all->range.end};
    size_t np = oklc_cpu_divisions(C, (Range){x->all->range.begin, x->f->range.begin}, pre,
                                   MAX_TERMS);
    size_t nq = oklc_cpu_divisions(C, after, post, MAX_TERMS);
    size_t n = 0;
    *list = "";
    for (size_t i = 0; i < x->nslots; i++) {
        const Var *v = x->slots[i];
        Range rest = {v->declarator_end, x->all->range.end};
        if (oklc_cpu_divisions(C, v->init, NULL, 0) && !oklc_cpu_written_in(C, v, rest) &&
            oklc_cpu_uses(v, after)) {
            *list = oklc_arena_printf(C->a, "%s%s%s", *list, n ? ", " : "", v->name);
            n++;
        }
    }
    for (size_t i = 0; i < C->k->natomics; i++)
        if (one_element(C, x, C->k->atomics[i])) {
            Range lhs = C->k->atomics[i]->lhs;    /* as written (a reduction renames it) */
            *list = oklc_arena_printf(C->a, "%s%supdates of %.*s", *list, n ? ", " : "",
                                      (int)(lhs.end - lhs.begin), C->E->nz->text + lhs.begin);
            n++;
        }
    for (size_t i = 0; i < nq && i < MAX_TERMS; i++) {
        bool seen = false, before = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = !strcmp(post[k], post[i]);
        for (size_t k = 0; k < np && k < MAX_TERMS && !before; k++)
            before = !strcmp(pre[k], post[i]);
        if (!seen && before) {
            *list = oklc_arena_printf(C->a, "%s%s%s", *list, n ? ", " : "", post[i]);
            n++;
        }
    }
    return n;
}

/* Is there an @atomic in r that OpenMP threads contend for: one not made
 * in a reduction (cpu_reduce.c), where each thread updates a copy? */
static bool contended(Cpu *C, Range r)
{
    for (size_t i = 0; i < C->k->natomics; i++)
        if (oklc_in_range(r, C->k->atomics[i]->stmt.begin) &&
            !oklc_cpu_reduced(C, C->k->atomics[i]))
            return true;
    return false;
}

/* Does the interchange pay? NULL when it does, else why not, for the
 * output.
 *  - A strided slice pays (its rounds are the memory's order) but over a
 *    few threads (at most 16) with a sum: their elements share cache lines
 *    already, and a round is at most two vectors of a count known only
 *    then (a random kernel of 8 threads ran 1.27 times slower).
 *  - A loop of a few iterations (a count of at most 4 that Clang knows):
 *    as written the compiler unrolls it in place, and the thread's other
 *    statements and sums stay where they are; interchanged, they would run
 *    in loops of their own and the sums go to slots, for almost nothing
 *    (random kernels of tests/diff ran 1.1 to 1.3 times slower). It pays
 *    only where the loop is all the thread does and keeps no sum (4
 *    elements per thread, 256 apart: bench/compare's triad4 ran 2.6 times
 *    faster interchanged).
 *  - Without tiles of rows: as written, each thread's loop keeps what it
 *    accumulates across its iterations in a register; interchanged, every
 *    iteration loads and stores it for each thread. That pays where the
 *    loop reads the kernel's arguments (the threads' neighbouring elements
 *    come in one pass instead of a stride per thread); where its reads are
 *    all of the block's own arrays (@shared, local: in the cache), only
 *    the sums' traffic changes, for the worse (a tiled product's k loop
 *    over its staged tiles ran 1.3 to 1.5 times slower interchanged,
 *    bench/compare's matmulStaged); so too where the arguments it reads
 *    are alike for every thread (alike(): a 9-point filter's weights
 *    `w[j + 4]`, its samples in @shared memory, ran 1.36 times slower on
 *    one core interchanged, 1.7 on two). The sums include the elements
 *    of @exclusive arrays (a product's 4 rows per thread, `acc[w] +=`
 *    over staged tiles: 1.56 times slower interchanged).
 *  - Where tiles of rows would gather (gathers()): as written, each
 *    thread's loop walks its row in order, its sums in registers.
 *  - A loop whose iterations divide alike by a value known only at run
 *    time (`x[i] * w[j % N]`): as written the compiler computes it once
 *    per thread; interchanged, each iteration computes it for every thread.
 *  - A loop of a known count, fewer than ROUNDS_PER_ITEM iterations
 *    per item that splitting the thread's statements around it repeats or
 *    chains (split_work()). A strided slice's count of rounds is known only
 *    at run time: the choice is made then (enough_rounds()).
 *  - On OpenMP, a thread with atomic updates besides the loop: interchanged,
 *    the block's updates run back to back in a loop of their own, where the
 *    other OpenMP threads' updates of the same elements (a histogram's bins)
 *    take their cache lines from them at every step; as written the loop's
 *    work spaces them out (a random kernel with 8 shared bins ran 1.13
 *    times slower interchanged on 2 threads, as fast on 1). An update made
 *    in a reduction (cpu_reduce.c) is no such update: each OpenMP thread
 *    has its own copy. */
static const char *pays(Cpu *C, const Interchange *x)
{
    const char *arrays = arrays_kept(C, x);
    if (arrays)
        return arrays;
    Range body = x->f->kids[x->f->nkids - 1]->range;
    const bool sums = carries_sums(C, x, body);
    if (C->omp && (contended(C, (Range){x->all->range.begin, x->f->range.begin}) ||
                   contended(C, (Range){x->f->range.end, x->all->range.end})))
        return "interchanged with the threads, each thread's atomic updates would run back to "
               "back with the other threads', contending with the other OpenMP threads for "
               "their cache lines";
    const char *inv = invariant_divisions(C, x), *again;
    if (*inv)
        return oklc_arena_printf(C->a, "each iteration divides by a value known only at run "
                                       "time, the same in every iteration (%s): as written the "
                                       "compiler computes it once per thread; interchanged, "
                                       "each iteration would compute it for every thread",
                                 inv);
    if (x->strided)
        return x->threads > 16 || !sums
                   ? NULL
                   : oklc_arena_printf(C->a,
                                       "the slices of %lld threads, whose elements already "
                                       "share cache lines; interchanged, each round would be "
                                       "at most two vectors and the sums would go to memory",
                                       (long long)x->threads);
    const bool alone = !x->guard && x->at == 0 && x->body->nkids == 1;
    if (x->f->trips >= 0 && x->f->trips <= 4 && (sums || !alone))
        return oklc_arena_printf(C->a,
                                 "a loop of %d iterations, which the compiler unrolls where it "
                                 "is; interchanged with the threads, the rest of each thread's "
                                 "work would run in loops of its own",
                                 (int)x->f->trips);
    size_t items = split_work(C, x, &again);
    if (x->f->trips >= 0 && items && x->f->trips < ROUNDS_PER_ITEM * (int64_t)items)
        return oklc_arena_printf(C->a, "a loop of %d iterations; interchanged with the threads, "
                                       "the statements before and after it would run in loops "
                                       "of their own, %s (%s), which costs more than %d "
                                       "iterations save",
                                 (int)x->f->trips, SPLIT_WORK, again, (int)x->f->trips);
    if (!x->rows && sums && x->gathered)
        return "in tiles of rows, the innermost threads would gather elements a row apart "
               "(their index in a subscript other than the last); as written, each thread's "
               "loop reads its row in order and keeps its sums in registers";
    if (!x->rows && sums && !reads_threads_arguments(C, x, body))
        return "interchanged with the threads, each thread's sums would go to memory in every "
               "iteration, for reads of the block's own arrays and of elements alike for every "
               "thread only";
    return NULL;
}

/* "[j][i]" (or "[8][8]": the counts), over the nest's levels. */
static const char *subscripts(Cpu *C, const Interchange *x, bool iterators)
{
    const char *s = "";
    for (size_t i = 0; i < x->nlevels; i++)
        s = oklc_arena_printf(C->a, "%s[%s]", s,
                              iterators ? x->levels[i]->iter : x->levels[i]->trips);
    return s;
}

/* The loops over every thread of the nest, outermost first, the
 * innermost with the header `inner` if not NULL. */
static const char *each_thread(Cpu *C, const Interchange *x, const char *inner)
{
    const char *s = "";
    for (size_t i = 0; i < x->nlevels; i++) {
        const Loop *l = x->levels[i];
        if (inner && i + 1 == x->nlevels)
            s = oklc_arena_printf(C->a, "%s%sfor %s", s, i ? " " : "", inner);
        else
            s = oklc_arena_printf(C->a, "%s%sfor (%s %s = 0; %s < %s; ++%s)", s, i ? " " : "",
                                  oklc_emit_iter_type(C->E, l), l->iter, l->iter, l->trips,
                                  l->iter);
    }
    return s;
}

/* Every use of a slotted declaration in the body becomes its thread's
 * slot, v followed by `at` ("[j][i]"). */
static void use_slots(Cpu *C, const Interchange *x, const char *at)
{
    for (size_t i = 0; i < x->nslots; i++) {
        const Var *v = x->slots[i];
        for (size_t j = 0; j < v->nrefs; j++)
            if (oklc_in_range(x->all->range, v->refs[j].begin) &&
                v->refs[j].begin != v->name_off)
                oklc_edit_replace(&C->E->ed, v->refs[j].begin, v->refs[j].end,
                                  oklc_arena_printf(C->a, "%s%s", v->name, at));
    }
}

/* The name of value i of the tile: slot i (its declaration's name), then
 * the copies of the @exclusive sums (`_occa_tile_acc`). */
static const char *tile_value(Cpu *C, const Interchange *x, size_t i)
{
    return i < x->nslots ? x->slots[i]->name
                         : oklc_arena_printf(C->a, "_occa_tile_%s", x->sums[i - x->nslots]->name);
}

/* In tiles, every use of an @exclusive sum in the loop's body becomes
 * its thread's element of the tile's copy (the slot appended to the name,
 * exclusive_var in cpu.c, goes with the name replaced). */
static void use_sums(Cpu *C, const Interchange *x)
{
    Range body = x->f->kids[x->f->nkids - 1]->range;
    for (size_t i = 0; i < x->nsums; i++) {
        const Var *v = x->sums[i];
        for (size_t j = 0; j < v->nrefs; j++)
            if (oklc_in_range(body, v->refs[j].begin))
                oklc_edit_replace(&C->E->ed, v->refs[j].begin, v->refs[j].end,
                                  oklc_arena_printf(C->a, "%s[_occa_row][%s]",
                                                    tile_value(C, x, x->nslots + i), x->l->iter));
    }
}

static bool listed(const Var *const *list, size_t n, const Var *v)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return true;
    return false;
}

static bool slotted(const Interchange *x, const Var *v)
{
    return listed(x->slots, x->nslots, v);
}

/* The statements of body kids [from, to), rendered. */
static const char *kids(Cpu *C, const Interchange *x, size_t from, size_t to)
{
    if (from >= to)
        return "";
    uint32_t begin = oklc_emit_stmt_start(C->E, x->body->kids[from]->range.begin);
    return oklc_cpu_render(C, (Range){begin, x->body->kids[to - 1]->range.end});
}

/* The body of the thread's loop (a pragma before it now starts it). */
static const char *body_of(Cpu *C, const Stmt *f)
{
    const char *b = oklc_cpu_render_stmt(C, f->kids[f->nkids - 1]);
    return b + strspn(b, " \t\n");
}

/* The vector iterations of the full rounds' loop over the threads where
 * every thread's sums (its slots) fit in 16 of AVX-512's 32 registers and
 * that loop has more than 4 of them (0: not so). Unrolled whole, the sums
 * stay in registers across the rounds and the elements are still read in
 * memory's order: the dot product's 256 sums of floats (16 vectors), one
 * core, AMD Zen 5, unrolled 16 times against 4: from memory 1.04-1.11 of
 * the expert's against 0.85-0.89, in the cache 1.37-1.43 against
 * 1.35-1.38. Not with AVX2: 16 registers hold no more than 512 bytes,
 * and there (AMD Zen 3) unrolling by 16 ran as by 4. */
static int64_t rounds_in_registers(const Interchange *x)
{
    int64_t least = 0;
    if (array_slots(x))
        return 0;
    for (size_t i = 0; i < x->nslots + x->nsums; i++) {
        int64_t size = value_size(x, i);
        if (size <= 0)
            return 0;
        least = least && least < size ? least : size;
    }
    int64_t bytes = row_bytes(x), vectors = x->l->ntrips * least / VECTOR_BYTES;
    return x->l->ntrips > 0 && bytes > 0 && bytes <= TILE_BYTES && vectors > 4 ? vectors : 0;
}

/* The full rounds' unrolling, for the decision: "" where by 4 alone. */
static const char *rounds_text(Cpu *C, const Interchange *x)
{
    int64_t whole = rounds_in_registers(x);
    return whole ? oklc_arena_printf(C->a, ", the full rounds unrolled %lld times when compiled "
                                           "for AVX-512 (the threads' sums, %lld bytes, in "
                                           "registers; 4 without)",
                                     (long long)whole, (long long)row_bytes(x))
                 : "";
}

/* Where a strided slice runs as written with few rounds, for the
 * decision: "" where it is always interchanged. */
static const char *few_rounds_text(Cpu *C, const Interchange *x)
{
    return x->least_rounds
               ? oklc_arena_printf(C->a, ", where the first thread has %lld rounds or more (as "
                                         "written with fewer: the statements before and after "
                                         "the loop would run in loops of their own, %s: %s)",
                                   (long long)x->least_rounds, SPLIT_WORK, x->split)
               : "";
}

/* The strided loop's step: the rounds' distance. */
static const char *round_step(Cpu *C, const Interchange *x)
{
    return x->s.by_threads ? x->l->trips : oklc_cpu_op(C, oklc_cpu_render(C, x->s.step));
}

/* Has the first thread at least x->least_rounds rounds (is the first
 * element of that round in range)? Only a choice between two forms of the
 * same work, so the types' limits do not matter. */
static const char *enough_rounds(Cpu *C, const Interchange *x)
{
    return oklc_arena_printf(C->a, "(long long)(%s) - (long long)(%s) %s (long long)%s * %lld",
                             x->end, x->s.base, strcmp(x->op, "<=") ? ">" : ">=",
                             round_step(C, x), (long long)(x->least_rounds - 1));
}

/* The strided loop: the rounds, the threads inside (element r + t while
 * it passes the bound). First the rounds where every thread passes, the
 * threads a loop of the constant count (which the compiler vectorises
 * whole: the dot product's sums in the cache, one core, 1.05 -> 1.22 of
 * the expert's), then the rest as they come (a last round cut short, or
 * several where the rounds step by less than the threads). The same
 * elements in the same order for every thread. The full rounds' loop is
 * unrolled by 4: each thread's sums live in memory across the rounds, so
 * every vector also loads and stores them, and GCC does not unroll a
 * vectorised loop at -O3 (the dot product with AVX2, one core: in the
 * cache 0.50 -> 0.75 of the expert's, from memory 0.80 -> 0.89). Compiled
 * for AVX-512, unrolled whole where the sums fit in 16 vector registers
 * (rounds_in_registers()). */
static void rounds(Cpu *C, const Interchange *x, const char *again, Buf *o, const char *ind)
{
    const Loop *l = x->l;
    const char *it = l->iter, *T = l->trips, *itype = oklc_emit_iter_type(C->E, l);
    const char *type = oklc_arena_strndup(C->a, x->s.decl, strlen(x->s.decl) - strlen(x->s.n));
    const char *left = oklc_arena_printf(C->a, "(%s) - _occa_round%s", x->end,
                                         strcmp(x->op, "<=") ? "" : " + 1");
    const char *step = round_step(C, x);
    const char *each = oklc_arena_printf(C->a, "%s      %s = _occa_round + %s;\n%s%s      %s\n",
                                         ind, x->s.decl, it, again, ind, body_of(C, x->f));
    oklc_buf_printf(o, "%s  %s_occa_round = %s;\n", ind, type, x->s.base);
    oklc_buf_printf(o, "%s  for (; _occa_round %s %s && %s >= %s; _occa_round += %s) {\n", ind,
                    x->op, x->end, left, T, step);
    int64_t whole = rounds_in_registers(x);
    if (whole)
        oklc_buf_printf(o, "#if defined(__AVX512F__)\n%s    #pragma GCC unroll %lld\n#else\n",
                        ind, (long long)whole);
    oklc_buf_printf(o, "%s    #pragma GCC unroll 4\n%s", ind, whole ? "#endif\n" : "");
    oklc_buf_printf(o, "%s    for (%s %s = 0; %s < %s; ++%s) {\n%s%s    }\n%s  }\n", ind, itype, it,
                    it, T, it, each, ind, ind);
    oklc_buf_printf(o, "%s  for (; _occa_round %s %s; _occa_round += %s) {\n", ind, x->op, x->end,
                    step);
    oklc_buf_printf(o, "%s    const %s_occa_threads = %s < %s ? %s : %s;\n", ind, type, left, T,
                    left, T);
    oklc_buf_printf(o, "%s    for (%s %s = 0; %s < _occa_threads; ++%s) {\n%s%s    }\n%s  }\n", ind,
                    itype, it, it, it, each, ind, ind);
}

/* The values declared again (inside: those declared in the guard's { },
 * else those before it), each on a line of its own (unused in some loops:
 * the compiler is told). */
static const char *again_decls(Cpu *C, const Interchange *x, bool inside, const char *ind)
{
    const char *s = "";
    for (size_t i = 0; i < x->nagain; i++) {
        const Var *v = x->again[i];
        if ((x->guard && v->name_off > x->guard->range.begin) == inside)
            s = oklc_arena_printf(C->a, "%s%s[[maybe_unused]] %s\n", s, ind,
                                  oklc_cpu_declare_alone(C, &C->E->ed, v));
    }
    return s;
}

/* Statements [from, to) of those before the loop, as lines indented by
 * `ind` (the declarations computed once or declared again are not among
 * them); a slotted declaration's initializer stores into slot `at`
 * ("j][i"). */
static const char *inits(Cpu *C, const Interchange *x, const char *at, size_t from, size_t to,
                         const char *ind)
{
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_puts(&b, "");
    for (size_t i = from; i < to; i++) {
        const Stmt *d = before(x, i);
        if (d->kind != ST_DECL)
            oklc_buf_printf(&b, "%s%s\n", ind, oklc_cpu_render_stmt(C, d));
        for (size_t k = 0; d->kind == ST_DECL && k < d->ndecls; k++)
            if (slotted(x, d->decls[k]) && d->decls[k]->init_form)
                oklc_buf_printf(&b, "%s%s\n", ind,
                                oklc_cpu_init_slot(C, d->decls[k], d->decls[k]->name, at));
    }
    return b.data;
}

/* The declaration of v's slots: v, then `dims` ("[8][16]"). */
static const char *slots_of(Cpu *C, const Var *v, const char *dims)
{
    return oklc_cpu_declaration(C, v, oklc_arena_printf(C->a, "%s%s", v->name, dims));
}

/* The declarations computed once, before every loop, and those with a
 * slot per thread, `slots` after the name ("[8][8]"; NULL: declared
 * elsewhere); a declaration of one name stays as written. */
static void once_decls(Cpu *C, const Interchange *x, const char *slots, Buf *o, const char *ind)
{
    for (size_t i = 0; i < x->npre + x->at; i++) {
        const Stmt *d = before(x, i);
        for (size_t k = 0; d->kind == ST_DECL && k < d->ndecls; k++) {
            const Var *v = d->decls[k];
            if (slotted(x, v) && slots)
                oklc_buf_printf(o, "%s  %s;\n", ind, slots_of(C, v, slots));
            else if (slotted(x, v) || listed(x->again, x->nagain, v))
                continue;
            else if (d->ndecls == 1)
                oklc_buf_printf(o, "%s  %s\n", ind, oklc_cpu_render_stmt(C, d));
            else
                oklc_buf_printf(o, "%s  %s\n", ind, oklc_cpu_declare_alone(C, &C->E->ed, v));
        }
    }
}

/* What stands before the loop (an unroll pragma), which stays before it. */
static void before_loop(Cpu *C, const Interchange *x, Buf *o)
{
    uint32_t gap = x->at ? x->body->kids[x->at - 1]->range.end : x->body->range.begin + 1;
    const char *before = oklc_cpu_render(C, (Range){gap, x->f->range.begin});
    size_t from = strspn(before, "\n"), to = strlen(before);
    while (to > from && strchr(" \t\n", before[to - 1]))
        to--;
    if (to > from)
        oklc_buf_printf(o, "%.*s\n", (int)(to - from), before + from);
}

/* Statement text as a line indented by `ind` (or nothing). */
static const char *line(Cpu *C, const char *ind, const char *text)
{
    size_t from = strspn(text, " \t\n"), to = strlen(text);
    while (to > from && strchr(" \t\n", text[to - 1]))
        to--;
    return to > from ? oklc_arena_printf(C->a, "%s%.*s\n", ind, (int)(to - from), text + from) : "";
}

/* The indentation of a thread's statements in a loop indented by `ind`
 * (inside the guard, if there is one). */
static const char *guarded_ind(Cpu *C, const Interchange *x, const char *ind)
{
    return x->guard ? oklc_arena_printf(C->a, "%s  ", ind) : ind;
}

/* What a thread runs in one loop over the threads (lines indented by
 * `ind`): its values declared again, `pre` (the statements before the
 * guard), then `text`, under the guard if there is one (and the values
 * declared in it first). */
static const char *thread_text(Cpu *C, const Interchange *x, const char *pre, const char *text,
                               const char *ind)
{
    const char *s = oklc_arena_printf(C->a, "%s%s", again_decls(C, x, false, ind), pre);
    if (!*text)
        return s;
    if (!x->guard)
        return oklc_arena_printf(C->a, "%s%s", s, text);
    return oklc_arena_printf(C->a, "%s%sif (%s) {\n%s%s%s}\n", s, ind,
                             oklc_cpu_render(C, x->guard->head),
                             again_decls(C, x, true, guarded_ind(C, x, ind)), text, ind);
}

/* The step of the @outer loop o, "" for 1 (" * 16" for 16), or NULL
 * where it is not a positive number. */
static const char *pair_step(Cpu *C, const Loop *o)
{
    long long s;
    if (!oklc_cpu_literal(o->stride, &s) || s <= 0)
        return NULL;
    return s == 1 ? "" : oklc_arena_printf(C->a, " * %lld", s);
}

/* The @outer loop whose blocks may run two at a time in the tiles, or
 * NULL. A tile row of one AVX-512 vector (16 floats) makes each load of
 * the loop's other operand (A[row * N + k], one per row) feed one
 * multiply-add, and loads bound the loop; two neighbouring blocks side by
 * side make the row two vectors, each load feeding two (an unroll and jam
 * of the @outer loop; a 16 x 16 float product, standalone: 4.0 -> 2.1
 * ms). Under AVX2 such a row is two vectors already, and the pair
 * spilled registers (4.1 -> 7.4 ms): the output pairs only where the
 * compiler targets AVX-512. The @outer loop counts up by a number (a
 * pair is two neighbouring iterations) to a bound without memory reads or
 * calls, the nest is its whole body, and its
 * iterator is used by the threads' statements only (not by the loop's
 * header, a loop around it or a value computed once for the block). */
static const Loop *pair_loop(Cpu *C, const Interchange *x)
{
    const Loop *top = x->levels[0], *o = top->parent;
    if (!x->rows || x->nsums || !o || o->kind != LOOP_OUTER || !oklc_cpu_collapsible(C, o, top) ||
        o->down || !pair_step(C, o) || (o->cmp != CMP_LT && o->cmp != CMP_LE) ||
        !oklc_cpu_pure(C, o->bound, false) || row_bytes(x) > 64 ||
        2 * x->rows * row_bytes(x) > TILE_BYTES)
        return NULL;
    const Var *it = oklc_cpu_iter_var(C, o);
    if (!it || !it->is_signed || oklc_refers_in(it, x->f->head))
        return NULL;
    for (size_t i = 0; i < x->ninner; i++)
        if (oklc_refers_in(it, x->inner[i]->head))
            return NULL;
    for (size_t i = 0; i < x->npre + x->at; i++) {
        const Stmt *d = before(x, i);
        for (size_t k = 0; d->kind == ST_DECL && k < d->ndecls; k++)
            if (!slotted(x, d->decls[k]) && !listed(x->again, x->nagain, d->decls[k]) &&
                oklc_refers_in(it, d->range))
                return NULL;
    }
    return o;
}

/* The threads of one tile (the loops indented by `ind`) running `pre`
 * and `text` (thread_text, lines indented by ind + 4): the rows of the
 * tile, each with the innermost level's threads inside (simd: independent,
 * which the compiler is told), the row's iterator first. */
static void tile_threads(Cpu *C, const Interchange *x, const char *pre, const char *text,
                         bool simd, Buf *o, const char *ind)
{
    const Loop *row = x->levels[x->nlevels - 2], *l = x->l;
    oklc_buf_printf(o, "%sfor (int _occa_row = 0; _occa_row < %s; ++_occa_row) {\n", ind,
                    rows_text(C, x));
    oklc_buf_printf(o, "%s  [[maybe_unused]] const %s %s = _occa_rows + _occa_row;\n", ind,
                    oklc_emit_iter_type(C->E, row), row->iter);
    const char *in = ind;
    if (x->pair) {    /* the row's threads in each block of the pair */
        in = oklc_arena_printf(C->a, "%s  ", ind);
        oklc_buf_printf(o, "%s  for (int _occa_h = 0; _occa_h < 2; ++_occa_h) {\n"
                           "%s    [[maybe_unused]] const %s %s = _occa_pair_%s + _occa_h%s;\n",
                        ind, ind, oklc_emit_iter_type(C->E, x->pair), x->pair->iter,
                        x->pair->iter, pair_step(C, x->pair));
    }
    if (x->panel)     /* the block's place in the panel's row (use_panel()) */
        oklc_buf_printf(o, "%s  [[maybe_unused]] const long long _occa_po = %s;\n", in,
                        x->pair ? oklc_arena_printf(C->a, "_occa_h * %lld", (long long)l->ntrips)
                                : "0");
    if (simd)
        oklc_buf_printf(o, "%s  _occa_simd\n", in);
    oklc_buf_printf(o, "%s  for (%s %s = 0; %s < %s; ++%s) {\n%s%s  }\n", in,
                    oklc_emit_iter_type(C->E, l), l->iter, l->iter, l->trips, l->iter,
                    thread_text(C, x, pre, text, oklc_arena_printf(C->a, "%s    ", in)), in);
    if (x->pair)
        oklc_buf_printf(o, "%s  }\n", ind);
    oklc_buf_printf(o, "%s}\n", ind);
}

/* The tile's copies of the @exclusive sums loaded from their slots (in),
 * or stored back (out): lines indented by `ind`. */
static const char *sums_moved(Cpu *C, const Interchange *x, const char *ind, bool in)
{
    const char *s = "";
    for (size_t i = 0; i < x->nsums; i++) {
        const char *tile = oklc_arena_printf(C->a, "%s[_occa_row][%s]",
                                             tile_value(C, x, x->nslots + i), x->l->iter);
        s = oklc_arena_printf(C->a, "%s%s%s = %s;\n", s, ind, in ? tile : x->sum_at[i],
                              in ? x->sum_at[i] : tile);
    }
    return s;
}

/* `for (T k = a; k < b; ++k)` (k++, k += n, or <= b), T a signed
 * integer type: its parts. */
typedef struct Counted {
    const char *type, *var, *start, *end, *step;
    long long   by;               /* the step's value */
} Counted;

/* The head's three parts, split at the ';' outside brackets. */
static bool head_parts(Cpu *C, const char *h, const char *part[3])
{
    int depth = 0, n = 0;
    const char *from = h;
    for (const char *p = h;; p++) {
        depth += strchr("([{", *p) && *p ? 1 : strchr(")]}", *p) && *p ? -1 : 0;
        if (*p && (*p != ';' || depth))
            continue;
        if (n == 3)
            return false;
        Range r = oklc_cpu_trimmed(from, 0, (uint32_t)(p - from));
        part[n++] = oklc_arena_strndup(C->a, from + r.begin, r.end - r.begin);
        if (!*p)
            return n == 3;
        from = p + 1;
    }
}

static bool counted_loop(Cpu *C, const Stmt *f, Counted *c)
{
    const Var *v = oklc_cpu_for_var(C, f);
    const char *part[3];
    if (!v || !v->is_signed || !head_parts(C, oklc_cpu_render(C, f->head), part))
        return false;                   /* a signed integer's count (end - start is one) */
    size_t n = strlen(v->name);
    const char *eq = strchr(part[0], '='), *name = eq ? eq : part[0];
    while (name > part[0] && isspace((unsigned char)name[-1]))
        name--;
    if (!eq || name - part[0] <= (ptrdiff_t)n || strncmp(name - n, v->name, n) ||
        oklc_ident_char(name[-(ptrdiff_t)n - 1]))
        return false;
    c->type = oklc_arena_strndup(C->a, part[0], (size_t)(name - n - part[0]));
    c->var = v->name;
    c->start = eq + 1 + strspn(eq + 1, " ");
    const char *cond = part[1], *step = part[2];
    if (strncmp(cond, v->name, n) || oklc_ident_char(cond[n]))
        return false;
    cond += n + strspn(cond + n, " ");
    bool le = !strncmp(cond, "<=", 2);
    if (*cond != '<' || cond[1] == '<')
        return false;
    cond += le ? 2 : 1;
    c->end = oklc_arena_printf(C->a, "(%s)", cond + strspn(cond, " "));
    if (le)
        c->end = oklc_cpu_plus_one(C, c->end);
    const char *inc = oklc_arena_printf(C->a, "++%s", v->name),
               *post = oklc_arena_printf(C->a, "%s++", v->name),
               *add = oklc_arena_printf(C->a, "%s+=", v->name);
    char *packed = oklc_arena_strndup(C->a, step, strlen(step)), *q = packed;
    for (const char *p = step; *p; p++)     /* `k+=16`, `k += 16`, `k ++`: one spelling */
        if (!isspace((unsigned char)*p))
            *q++ = *p;
    *q = '\0';
    step = packed;
    c->by = 1;
    if (!strcmp(step, inc) || !strcmp(step, post))
        c->step = "1";
    else if (!strncmp(step, add, strlen(add)) && oklc_cpu_literal(step + strlen(add), &c->by) &&
             c->by > 0)
        c->step = step + strlen(add);
    else
        return false;
    return c->type[0] && oklc_cpu_pure(C, c->start, false) && oklc_cpu_pure(C, c->end, false);
}

/* Values of the loop's variable per block: the other operand's rows (one
 * per value) one tile row wide (a row of each block of a pair) within
 * 16 KiB, which stays in L1 while the tiles of rows reuse it; 0 when the
 * loop is not blocked (a nest of three levels, whose tiles' values would
 * need a slot per plane as well). */
static int64_t block_iterations(const Interchange *x)
{
    int64_t width = row_bytes(x) * (x->pair ? 2 : 1);
    if (x->nlevels != 2 || width <= 0)
        return 0;
    int64_t n = 16384 / width;
    return n < 16 ? 16 : n;
}

/* Values per block where the tiles' loop may run in blocks (a counted
 * loop without an unroll hint, not known to be short), else 0. */
static int64_t blocks(Cpu *C, const Interchange *x, Counted *k)
{
    int64_t n = block_iterations(x);
    if (!n || x->hinted || !counted_loop(C, x->f, k))
        return 0;
    return x->f->trips > 0 && x->f->trips * k->by <= LONG_LOOP ? 0 : n;
}

/* Lines (indented by `ind`) copying each value of the tile to the
 * block's copy of it (save) or back. */
static const char *kept_moved(Cpu *C, const Interchange *x, const char *ind, bool save)
{
    const char *h = x->pair ? "[_occa_h]" : "", *it = x->l->iter, *s = "";
    for (size_t i = 0; i < x->nslots + x->nsums; i++) {
        const char *name = tile_value(C, x, i);
        const char *tile = oklc_arena_printf(C->a, "%s[_occa_row]%s[%s]", name, h, it);
        const char *kept = oklc_arena_printf(C->a, "_occa_kept_%s[_occa_rows + _occa_row]%s[%s]",
                                             name, h, it);
        s = oklc_arena_printf(C->a, "%s%s%s = %s;\n", s, ind, save ? kept : tile,
                              save ? tile : kept);
    }
    return s;
}

/* `for (_occa_rows ...) {` and the tile's values. */
static void tile_open(Cpu *C, const Interchange *x, Buf *o, const char *ind)
{
    const Loop *row = x->levels[x->nlevels - 2];
    oklc_buf_printf(o, "%sfor (int _occa_rows = 0; _occa_rows < %s; _occa_rows += %s) {\n", ind,
                    row->trips, rows_text(C, x));
    const char *tile = oklc_arena_printf(C->a, "[%s]%s[%lld]", rows_text(C, x),
                                         x->pair ? "[2]" : "", (long long)x->l->ntrips);
    for (size_t i = 0; i < x->nslots; i++)
        oklc_buf_printf(o, "%s  %s;\n", ind, slots_of(C, x->slots[i], tile));
    for (size_t i = 0; i < x->nsums; i++)
        oklc_buf_printf(o, "%s  %s;\n", ind,
                        oklc_cpu_declaration(C, x->sums[i],
                                             oklc_arena_printf(C->a, "%s%s",
                                                               tile_value(C, x, x->nslots + i),
                                                               tile)));
}

/* The loop over the tile (`head` for the outermost of its loops, NULL:
 * as written), the tile's threads inside each iteration; indented by
 * `in`. */
static void tile_loop(Cpu *C, const Interchange *x, const char *head, Buf *o, const char *in)
{
    before_loop(C, x, o);
    if (!x->hinted && x->sums_only && x->f->trips > 0 && x->f->trips <= 32)
        oklc_buf_printf(o, "%s#pragma GCC unroll %d\n", in, (int)x->f->trips);
    const Stmt *body = x->f->kids[x->f->nkids - 1], *last = x->inner[x->ninner - 1];
    const char *in2 = in;
    for (size_t i = 0; i < x->ninner; i++) {
        oklc_buf_printf(o, "%sfor (%s) {\n", in2,
                        i == 0 && head ? head : oklc_cpu_render(C, x->inner[i]->head));
        in2 = oklc_arena_printf(C->a, "%s  ", in2);
    }
    tile_threads(C, x, "", line(C, guarded_ind(C, x, oklc_arena_printf(C->a, "%s    ", in2)),
                                body_of(C, last)),
                 !oklc_cpu_has_atomic(C, body->range) && !oklc_cpu_transposed_in(C, body->range),
                 o, in2);
    for (size_t i = x->ninner; i-- > 0;)
        oklc_buf_printf(o, "%s%*s}\n", in, (int)(2 * i), "");
}

/* What a tile's threads run before the loop (pre: before the guard,
 * first: in it) and after it, as lines indented by `ind`. */
typedef struct Parts {
    const char *pre, *first, *rest;
} Parts;

static Parts thread_parts(Cpu *C, const Interchange *x, const char *ind)
{
    const char *at = oklc_arena_printf(C->a, "_occa_row]%s[%s", x->pair ? "[_occa_h]" : "",
                                       x->l->iter);
    const char *gt = guarded_ind(C, x, ind);
    Parts p = {inits(C, x, at, 0, x->npre, ind),
               oklc_arena_printf(C->a, "%s%s", inits(C, x, at, x->npre, x->npre + x->at, gt),
                                 sums_moved(C, x, gt, true)),
               sums_moved(C, x, gt, false)};
    if (x->at + 1 < x->body->nkids)
        p.rest = oklc_arena_printf(C->a, "%s%s", p.rest,
                                   line(C, gt, kids(C, x, x->at + 1, x->body->nkids)));
    return p;
}

/* The tiles, the loop as written (indented by `ind`). */
static void one_pass(Cpu *C, const Interchange *x, Buf *o, const char *ind)
{
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    Parts p = thread_parts(C, x, oklc_arena_printf(C->a, "%s    ", in));
    tile_open(C, x, o, ind);
    if (*p.pre || *p.first)
        tile_threads(C, x, p.pre, p.first, false, o, in);
    tile_loop(C, x, NULL, o, in);
    if (*p.rest)
        tile_threads(C, x, "", p.rest, false, o, in);
    oklc_buf_printf(o, "%s}\n", ind);
}

/* The loop in blocks of `n` iterations (counted loop k), the tiles'
 * values kept across blocks in a copy per thread (indented by `ind`):
 * the tiles run their threads' statements before the loop, then in each
 * block the loop over the block (the other operand's block of rows stays
 * in L1 for all the tiles), then the statements after it. */
static void blocked_tiles(Cpu *C, const Interchange *x, const Counted *k, int64_t n, Buf *o,
                          const char *ind)
{
    const char *dims = oklc_arena_printf(C->a, "[%lld]%s[%lld]", (long long)x->levels[0]->ntrips,
                                         x->pair ? "[2]" : "", (long long)x->l->ntrips);
    for (size_t i = 0; i < x->nslots + x->nsums; i++) {
        const Var *v = i < x->nslots ? x->slots[i] : x->sums[i - x->nslots];
        oklc_buf_printf(o, "%s%s;\n", ind,
                        oklc_cpu_declaration(C, v, oklc_arena_printf(C->a, "_occa_kept_%s%s",
                                                                     tile_value(C, x, i), dims)));
    }
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    const char *t = oklc_arena_printf(C->a, "%s    ", in), *gt = guarded_ind(C, x, t);
    Parts p = thread_parts(C, x, t);
    tile_open(C, x, o, ind);
    tile_threads(C, x, p.pre, oklc_arena_printf(C->a, "%s%s", p.first, kept_moved(C, x, gt, true)),
                 false, o, in);
    oklc_buf_printf(o, "%s}\n", ind);
    /* n values of k (its rows: a tile loop `kt += 16` around k < 16 walks
     * one row per value), a whole number of steps */
    long long span_n = n >= k->by ? n / k->by * k->by : k->by;
    const char *span = oklc_arena_printf(C->a, "%lld", span_n);
    /* the block's end, k0 + span or the loop's end (no overflow past it) */
    const char *stop = oklc_arena_printf(C->a, "(%s - _occa_k0 > %s ? _occa_k0 + %s : %s)",
                                         k->end, span, span, k->end);
    oklc_buf_printf(o, "%sfor (%s_occa_k0 = %s; _occa_k0 < %s; _occa_k0 = %s) {\n", ind, k->type,
                    k->start, k->end, stop);
    const char *in2 = oklc_arena_printf(C->a, "%s  ", in);
    const char *gt2 = guarded_ind(C, x, oklc_arena_printf(C->a, "%s    ", in2));
    tile_open(C, x, o, in);
    tile_threads(C, x, "", kept_moved(C, x, gt2, false), false, o, in2);
    tile_loop(C, x,
              oklc_arena_printf(C->a, "%s%s = _occa_k0, _occa_k1 = %s; %s < _occa_k1; %s += %s",
                                k->type, k->var, stop, k->var, k->var, k->step),
              o, in2);
    tile_threads(C, x, "", kept_moved(C, x, gt2, true), false, o, in2);
    oklc_buf_printf(o, "%s}\n%s}\n", in, ind);
    tile_open(C, x, o, ind);
    tile_threads(C, x, "", oklc_arena_printf(C->a, "%s%s", kept_moved(C, x, gt, false), p.rest),
                 false, o, in);
    oklc_buf_printf(o, "%s}\n", ind);
}

/* ---- panels: the other operand packed per column of blocks ------------------------------- */

/* The levels of the nest (bit i: x->levels[i]) that r depends on, through
 * their iterators or the values declared again from them (mask[j] for
 * x->again[j]). */
static unsigned levels_in(Cpu *C, const Interchange *x, const unsigned *mask, size_t nmask, Range r)
{
    unsigned m = 0;
    for (size_t i = 0; i < x->nlevels; i++)
        if (oklc_refers_in(oklc_cpu_iter_var(C, x->levels[i]), r))
            m |= 1u << i;
    for (size_t j = 0; j < nmask; j++)
        if (oklc_refers_in(x->again[j], r))
            m |= mask[j];
    return m;
}

/* levels_in() of each value declared again, from its initializer. */
static unsigned *again_levels(Cpu *C, const Interchange *x)
{
    unsigned *mask = oklc_arena_alloc(C->a, (x->nagain + 1) * sizeof *mask);
    for (size_t j = 0; j < x->nagain; j++)
        mask[j] = levels_in(C, x, mask, j, x->again[j]->init);
    return mask;
}

/* Is l's initializer `T i = ...` (OpenMP's canonical form leaves the
 * header alone, cpu.c)? */
static bool plain_init(Cpu *C, const Loop *l)
{
    const char *t = C->E->nz->text;
    uint32_t p = oklc_cpu_skip_blanks(t, l->iter_off + (uint32_t)strlen(l->iter), l->init.end);
    return p < l->init.end && t[p] == '=';
}

/* May v appear in the panel's read: a tile loop's variable, the innermost
 * thread, the column of blocks, or a scalar argument nothing writes? */
static bool panel_var(Cpu *C, const Interchange *x, const Loop *cols, const Var *v)
{
    if (v == oklc_cpu_iter_var(C, x->l) || v == oklc_cpu_iter_var(C, cols))
        return true;
    for (size_t i = 0; i < x->ninner; i++)
        if (v == oklc_cpu_for_var(C, x->inner[i]))
            return true;
    return v->kind == VAR_PARAM && !v->type.pointer && !v->type.array &&
           !oklc_cpu_written_in(C, v, C->k->body);
}

/* May v appear in the panel's read: panel_var(), or a value declared
 * again (x->again[i], i < upto) that ok[] allows? */
static bool panel_ref(Cpu *C, const Interchange *x, const Loop *cols, const bool *ok, size_t upto,
                      const Var *v)
{
    for (size_t i = 0; i < upto; i++)
        if (x->again[i] == v)
            return ok[i];
    return panel_var(C, x, cols, v);
}

/* Does r use only what panel_ref() allows? */
static bool panel_uses(Cpu *C, const Interchange *x, const Loop *cols, const bool *ok, size_t upto,
                       Range r)
{
    const Kernel *k = C->k;
    for (size_t j = 0; j < k->nlocals + k->nparams; j++) {
        const Var *v = j < k->nlocals ? k->locals[j] : k->params[j - k->nlocals];
        if (oklc_refers_in(v, r) && !panel_ref(C, x, cols, ok, upto, v))
            return false;
    }
    return true;
}

/* r rendered with each value declared again that ok[] allows replaced by
 * its initializer (the pack declares no thread's values: `col = bx * 16 +
 * tx` becomes (bx * 16 + tx)). */
static const char *panel_text(Cpu *C, const Interchange *x, const bool *ok, Range r)
{
    const char *s = "";
    for (uint32_t at = r.begin;;) {
        const Var *first = NULL;
        Range ref = {r.end, r.end};
        for (size_t i = 0; i < x->nagain; i++)
            for (size_t j = 0; ok[i] && j < x->again[i]->nrefs; j++) {
                Range u = x->again[i]->refs[j];
                if (u.begin >= at && u.begin < ref.begin && oklc_in_range(r, u.begin))
                    ref = u, first = x->again[i];
            }
        s = oklc_arena_printf(C->a, "%s%s", s, oklc_cpu_render(C, (Range){at, ref.begin}));
        if (!first)
            return s;
        s = oklc_arena_printf(C->a, "%s(%s)", s, panel_text(C, x, ok, first->init));
        at = ref.end;
    }
}

/* Is the read at `at` in the tile loop's body done in every iteration: in
 * a statement of its own (not under a nested loop), no ?:, && or || in
 * it? (The pack reads every row the tiles walk; a read the kernel may
 * skip could be past the data's end.) */
static bool always_read(Cpu *C, const Stmt *body, uint32_t at)
{
    const Stmt *st = body;
    for (size_t i = 0; body->kind == ST_COMPOUND && i < body->nkids; i++)
        if (oklc_in_range(body->kids[i]->range, at))
            st = body->kids[i];
    if (st->kind != ST_EXPR && st->kind != ST_DECL)
        return false;
    const char *t = C->E->nz->text;
    for (uint32_t p = st->range.begin; p < st->range.end; p++)
        if (t[p] == '?' || (p + 1 < st->range.end && (t[p] == '&' || t[p] == '|') &&
                            t[p + 1] == t[p]))
            return false;
    return true;
}

/* The read in the tiles' innermost body that a panel may hold: an
 * argument's const elements (nothing written aliases them), done in every
 * iteration, one subscript without memory reads, of panel_var()s and the
 * values declared again from them only (`k * N + col`, col = bx * 16 +
 * tx), the innermost thread in it. */
static bool panel_read(Cpu *C, const Interchange *x, const Loop *cols, Panel *pn)
{
    const Kernel *k = C->k;
    const char *t = C->E->nz->text;
    const Stmt *last = x->inner[x->ninner - 1], *st = last->kids[last->nkids - 1];
    Range body = st->range;
    bool *ok = oklc_arena_alloc(C->a, (x->nagain + 1) * sizeof *ok);
    for (size_t i = 0; i < x->nagain; i++)
        ok[i] = panel_uses(C, x, cols, ok, i, x->again[i]->init);
    const unsigned *mask = again_levels(C, x), innermost = 1u << (x->nlevels - 1);
    for (size_t i = 0; i < k->nparams; i++) {
        const Var *p = k->params[i];
        if (!oklc_cpu_unchanged_array(C, p))
            continue;
        for (size_t r = 0; r < p->nrefs; r++) {
            uint32_t o = oklc_cpu_skip_blanks(t, p->refs[r].end, body.end), c;
            if (!oklc_in_range(body, p->refs[r].begin) || o >= body.end || t[o] != '[' ||
                (c = oklc_cpu_closing(t, o, body.end)) >= body.end)
                continue;
            uint32_t after = oklc_cpu_skip_blanks(t, c + 1, body.end);
            Range sub = {o + 1, c};
            if ((after < body.end && t[after] == '[') ||
                !(levels_in(C, x, mask, x->nagain, sub) & innermost) ||
                !always_read(C, st, p->refs[r].begin) ||
                !oklc_cpu_pure(C, oklc_cpu_render(C, sub), false) ||
                !panel_uses(C, x, cols, ok, x->nagain, sub))
                continue;
            pn->read = (Range){p->refs[r].begin, c + 1};
            pn->array = p->name;
            pn->text = panel_text(C, x, ok, pn->read);
            return true;
        }
    }
    return false;
}

/* A counted loop of a known count from a number (its parts, its start). */
static bool numbered_loop(Cpu *C, const Stmt *f, Counted *c, long long *start)
{
    return counted_loop(C, f, c) && f->trips > 0 && oklc_cpu_literal(c->start, start);
}

/* The @outer loops around the nest whose top @inner loop is `top` let
 * a panel be packed per column of blocks: the column's loop inside a
 * top-level @outer loop of nothing else, neither header using the other's
 * iterator, both counting up from `T i = ...`. */
static bool panel_outers(Cpu *C, const Loop *top)
{
    const Loop *cols = top->parent, *rows = cols ? cols->parent : NULL;
    return rows && cols->kind == LOOP_OUTER && rows->kind == LOOP_OUTER && !rows->parent &&
           !cols->down && !rows->down && oklc_cpu_collapsible(C, rows, cols) &&
           !oklc_cpu_header_uses(C, cols, rows) && !oklc_cpu_header_uses(C, rows, cols) &&
           plain_init(C, cols) && plain_init(C, rows);
}

/* The tile loops' iteration number and count: one counted loop, or a
 * counted loop around one with number bounds and a known count. */
static bool panel_rows(Cpu *C, const Interchange *x, Panel *pn)
{
    Counted a, b;
    long long start;
    if (x->ninner > 2 || !counted_loop(C, x->inner[0], &a))
        return false;
    const char *n = oklc_arena_printf(
        C->a, "(%s > (%s) ? ((long long)%s - (%s) + %lld - 1) / %lld : 0LL)", a.end, a.start,
        a.end, a.start, a.by, a.by);
    const char *i = oklc_arena_printf(C->a, "(%s - (%s)) / %lld", a.var, a.start, a.by);
    if (x->ninner == 1) {
        pn->index = i;
        pn->count = n;
        return true;
    }
    if (!numbered_loop(C, x->inner[1], &b, &start))
        return false;
    pn->index = oklc_arena_printf(C->a, "%s * %d + (%s - %lld) / %lld", i,
                                  (int)x->inner[1]->trips, b.var, start, b.by);
    pn->count = oklc_arena_printf(C->a, "%s * %d", n, (int)x->inner[1]->trips);
    return true;
}

/* The panel of the tiles x, or NULL. Every row of blocks of a column
 * reads the product's other operand alike (B[(kt + k) * N + bx * 16 +
 * tx]: only the tile loops, the innermost thread and the column of blocks
 * in it); as written, each block walks its rows again, a row per k, from
 * far apart (12 KiB for 1536 doubles: a page each, the same L1 sets).
 * Packed once per column of blocks into rows in order, read by the
 * column's every row of blocks, the @outer loops swapped so that a
 * thread runs a column's blocks one after the other (standalone, one
 * core: 1536^2 floats 145-231 -> 54-90 ms, the expert's 176-236; 1024^2
 * 54-56 -> 23; 512^2 doubles 8.8-10.6 -> 4.3-6.1, docs/benchmarks.md).
 * Taken: tiles of a nest of two levels that only update their values
 * (under a guard, only blocks whose threads all pass it read the panel:
 * panel_threads()); the nest the whole body of the column's @outer loop,
 * itself the whole body of a top-level @outer loop, neither's header
 * using the other's iterator; tile loops that number their iterations
 * (panel_rows()); a read panel_read() takes. */
static Panel *panel_of(Cpu *C, const Interchange *x)
{
    const Loop *top = x->levels[0], *cols = top->parent, *rows = cols ? cols->parent : NULL;
    Panel pn = {.cols = cols, .rows = rows};
    if (!x->rows || x->nlevels != 2 || !x->sums_only || !panel_outers(C, top) ||
        !oklc_cpu_collapsible(C, cols, top) || !panel_rows(C, x, &pn) ||
        !panel_read(C, x, cols, &pn))
        return NULL;
    Panel *p = oklc_arena_alloc(C->a, sizeof *p);
    *p = pn;
    return p;
}

/* The header `(T i = start; i < bound; step)` of the @outer loop l. */
static const char *outer_head(Cpu *C, const Loop *l)
{
    return oklc_arena_printf(C->a, "(%s %s = %s; %s %s %s; %s)", oklc_emit_iter_type(C->E, l),
                             l->iter, l->start, l->iter, oklc_cmp_spelling(l->cmp), l->bound,
                             oklc_cpu_render(C, l->step));
}

/* The panel in use: the @outer loops swapped, the kernel's launch
 * numbered (the read is replaced where the tiles read the panel,
 * panel_threads()). */
static void use_panel(Cpu *C, const Interchange *x)
{
    const Panel *pn = x->panel;
    Edits *ed = &C->E->ed;
    oklc_edit_replace(ed, pn->rows->header.begin, pn->rows->header.end, outer_head(C, pn->cols));
    oklc_edit_replace(ed, pn->cols->header.begin, pn->cols->header.end, outer_head(C, pn->rows));
    if (!C->panels)
        oklc_edit_after(ed, C->k->body.begin + 1,
                        " const unsigned long _occa_launch = _occa_next_launch();"
                        " _occa_fault_list _occa_panel_faults;");
    C->panels = true;
}

/* `tiles` (lines indented by ind + 2) with the panel of `halves` blocks
 * (a pair's two, or one) from column `col` packed first, where the
 * launch has not packed it on this thread yet. */
static const char *with_panel(Cpu *C, const Interchange *x, int halves, const char *col,
                              const char *tiles, const char *ind)
{
    const Panel *pn = x->panel;
    const char *elem = oklc_arena_printf(C->a, "_occa_elem<decltype(%s[0])>", pn->array);
    const long long w = (long long)x->l->ntrips;
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_printf(&b, "%s{ /* the rows of %s the tiles read, packed once per column of blocks */\n"
                        "%s  static thread_local _occa_panel _occa_panel_site;\n"
                        "%s  const long long _occa_col = %s, _occa_pr = %s, _occa_pw = %lld;\n"
                        "%s  %s *_occa_pn = nullptr;\n%s  if (_occa_pr > 0) {\n"
                        "%s    bool _occa_fill = false;\n"
                        "%s    _occa_pn = static_cast<%s *>(_occa_panel_site.get(_occa_launch, "
                        "_occa_col * 2 + %d, sizeof(%s) * (size_t)(_occa_pr * _occa_pw), "
                        "&_occa_fill));\n%s    if (_occa_pn && _occa_fill) {\n"
                        "%s      long long _occa_i = 0;\n",
                    ind, pn->array, ind, ind, col, pn->count, (long long)halves * w, ind, elem,
                    ind, ind, ind, elem, halves - 1, elem, ind, ind);
    const char *in = oklc_arena_printf(C->a, "%s      ", ind);
    for (size_t i = 0; i < x->ninner; i++) {
        oklc_buf_printf(&b, "%sfor (%s) {\n", in, oklc_cpu_render(C, x->inner[i]->head));
        in = oklc_arena_printf(C->a, "%s  ", in);
    }
    oklc_buf_printf(&b, "%sfor (int _occa_h = 0; _occa_h < %d; ++_occa_h) {\n"
                        "%s  [[maybe_unused]] const %s %s = _occa_col + _occa_h%s;\n"
                        "%s  for (%s %s = 0; %s < %lld; ++%s)\n"
                        "%s    _occa_pn[_occa_i * _occa_pw + _occa_h * %lld + %s] = %s;\n"
                        "%s}\n%s++_occa_i;\n",
                    in, halves, in, oklc_emit_iter_type(C->E, pn->cols), pn->cols->iter,
                    halves > 1 ? pair_step(C, pn->cols) : "", in,
                    oklc_emit_iter_type(C->E, x->l), x->l->iter, x->l->iter, w, x->l->iter, in,
                    w, x->l->iter, pn->text, in, in);
    for (size_t i = x->ninner; i-- > 0;)
        oklc_buf_printf(&b, "%s      %*s}\n", ind, (int)(2 * i), "");
    oklc_buf_printf(&b, "%s    }\n%s  }\n%s  if (_occa_pn || _occa_pr <= 0) {\n%s%s  } else {\n"
                        "%s    _occa_panel_faults.mark(\"no memory for a panel of '%s' (the "
                        "rows of blocks' shared operand)\");\n%s  }\n%s}\n",
                    ind, ind, ind, tiles, ind, ind, pn->array, ind, ind);
    return b.data;
}

/* Threads in tiles of `rows` rows of the next-to-innermost level by the
 * innermost level: each tile runs its threads' statements before the
 * loop, the loop (the tile's threads inside each iteration), then the rest;
 * what the threads keep across the loop is a local array of the tile,
 * which the compiler keeps in registers (an unroll and jam of the rows).
 * A counted loop of a nest of two levels whose variable spans more than
 * LONG_LOOP values runs in blocks (blocked_tiles; the choice made at run
 * time, by the loop's range). */
static void tiles(Cpu *C, const Interchange *x, Buf *o, const char *ind)
{
    size_t outer = x->nlevels - 2;
    for (size_t i = 0; i < outer; i++) {
        const Loop *l = x->levels[i];
        oklc_buf_printf(o, "%s  for (%s %s = 0; %s < %s; ++%s) {\n", ind,
                        oklc_emit_iter_type(C->E, l), l->iter, l->iter, l->trips, l->iter);
    }
    Counted k;
    int64_t n = blocks(C, x, &k);
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    if (n) {
        const char *in2 = oklc_arena_printf(C->a, "%s  ", in);
        oklc_buf_printf(o, "%sif (_occa_rarely(%s - (%s) > %d)) { /* a long loop: in blocks "
                           "of %lld */\n",
                        in, k.end, k.start, LONG_LOOP, (long long)n);
        blocked_tiles(C, x, &k, n, o, in2);
        oklc_buf_printf(o, "%s} else {\n", in);
        one_pass(C, x, o, in2);
        oklc_buf_printf(o, "%s}\n", in);
    } else {
        one_pass(C, x, o, in);
    }
    for (size_t i = 0; i < outer; i++)
        oklc_buf_printf(o, "%s  }\n", ind);
}

/* The loops `each` over the threads running `text`, in an iteration of
 * the thread's loop (indented by `ind`). With a guard as their range: a
 * loop of the constant count where every thread passes (the count the
 * compiler vectorises best; a variable one made GCC copy by `rep movsq`),
 * the range otherwise. */
static const char *loop_threads(Cpu *C, const Interchange *x, const char *each, const char *text,
                                const char *ind)
{
    if (!x->from)
        return oklc_arena_printf(C->a, "%s%s {\n%s%s}\n", ind, each, text, ind);
    const Loop *l = x->l;
    const char *type = oklc_emit_iter_type(C->E, l), *it = l->iter;
    const char *range = oklc_arena_printf(C->a, "(%s %s = _occa_first_%s; %s < _occa_end_%s; ++%s)",
                                          type, it, it, it, it, it);
    return oklc_arena_printf(C->a,
                             "%sconst %s _occa_first_%s = %s, _occa_end_%s = %s;\n"
                             "%sif (_occa_first_%s == 0 && _occa_end_%s == %s) {\n"
                             "%s  %s {\n%s%s  }\n%s} else {\n%s  %s {\n%s%s  }\n%s}\n",
                             ind, type, it, x->from, it, x->to, ind, it, it, l->trips, ind, each,
                             text, ind, ind, ind, each_thread(C, x, range), text, ind, ind);
}

/* Each line of text (NULL: none) indented by `ind`. */
static const char *indented(Cpu *C, const char *ind, const char *text)
{
    if (!text)
        return "";
    Buf b;
    oklc_buf_init(&b, C->a);
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
        oklc_buf_printf(&b, "%s%.*s\n", ind, (int)strcspn(l, "\n"), l);
    return b.data;
}

/* The threads one after the other (the loops `each`), in each iteration of
 * the loop: what each thread keeps across it has a slot per thread. */
static void in_order(Cpu *C, const Interchange *x, Buf *o, const char *ind)
{
    const char *each = each_thread(C, x, NULL), *slot = subscripts(C, x, true);
    const char *in = oklc_arena_printf(C->a, "%s    ", ind), *gin = guarded_ind(C, x, in);
    /* "j][i": init_slot writes v[at] */
    const char *at = oklc_arena_strndup(C->a, slot + 1, strlen(slot) - 2);
    const char *pre = inits(C, x, at, 0, x->npre, in);
    const char *first = inits(C, x, at, x->npre, x->npre + x->at, gin);
    if (*pre || *first)
        oklc_buf_printf(o, "%s  %s {\n%s%s  }\n", ind, each, thread_text(C, x, pre, first, in),
                        ind);
    before_loop(C, x, o);
    const char *in2 = oklc_arena_printf(C->a, "%s  ", in);
    if (x->strided)
        rounds(C, x, again_decls(C, x, false, in2), o, ind);
    else
        oklc_buf_printf(o, "%s  for (%s) {\n%s%s%s  }\n", ind, oklc_cpu_render(C, x->f->head),
                        indented(C, in, x->prefetch),
                        loop_threads(C, x, each,
                                     thread_text(C, x, "",
                                                 line(C, guarded_ind(C, x, in2), body_of(C, x->f)),
                                                 in2),
                                     in),
                        ind);
    if (x->at + 1 < x->body->nkids)    /* the rest of each thread's statements */
        oklc_buf_printf(o, "%s  %s {\n%s%s  }\n", ind, each,
                        thread_text(C, x, "", line(C, gin, kids(C, x, x->at + 1, x->body->nkids)),
                                    in),
                        ind);
}

/* The threads' statements: in tiles, or one thread after the other. */
static void threads(Cpu *C, const Interchange *x, Buf *o, const char *ind)
{
    if (x->rows)
        tiles(C, x, o, ind);
    else
        in_order(C, x, o, ind);
}

/* The tiles of x, every thread passing the guard (lines indented by
 * `ind`): with a panel, packed first (`halves` blocks from column `col`,
 * with_panel()), and the tiles reading the packed row's element in place
 * of the read (_occa_po: the block's place in a pair's row,
 * tile_threads()). Only here: threads that may fail the guard read as
 * written (the pack reads what every thread of the block reads). */
static const char *panel_threads(Cpu *C, const Interchange *x, int halves, const char *col,
                                 const char *ind)
{
    Buf b;
    oklc_buf_init(&b, C->a);
    if (!x->panel) {
        threads(C, x, &b, ind);
        return b.data;
    }
    const Panel *pn = x->panel;
    uint32_t mark = oklc_edits_mark(&C->E->ed);
    oklc_edit_replace(&C->E->ed, pn->read.begin, pn->read.end,
                      oklc_arena_printf(C->a, "_occa_pn[(%s) * _occa_pw + _occa_po + %s]",
                                        pn->index, x->l->iter));
    threads(C, x, &b, oklc_arena_printf(C->a, "%s  ", ind));
    oklc_edits_rewind(&C->E->ed, mark);
    return with_panel(C, x, halves, col, b.data, ind);
}

/* The top-level `&&` terms of cond, blanks trimmed, into terms (at most
 * MAX_TERMS); the whole condition as one term where `||` or `?:` is at
 * its top or the terms are more. Their number. */
static size_t guard_terms(Cpu *C, Range cond, Range *terms)
{
    const char *t = C->E->nz->text;
    size_t n = 0;
    int depth = 0;
    uint32_t from = cond.begin;
    for (uint32_t p = cond.begin; p + 1 < cond.end; p++) {
        depth += t[p] == '(' || t[p] == '[' ? 1 : t[p] == ')' || t[p] == ']' ? -1 : 0;
        if (depth)
            continue;
        if (t[p] == '?' || (t[p] == '|' && t[p + 1] == '|') ||
            (t[p] == '&' && t[p + 1] == '&' && n + 1 == MAX_TERMS)) {
            n = 0, from = cond.begin;
            break;
        }
        if (t[p] == '&' && t[p + 1] == '&')
            terms[n++] = (Range){from, p}, from = p + 2;
    }
    terms[n++] = (Range){from, cond.end};
    for (size_t i = 0; i < n; i++) {
        terms[i].begin = oklc_cpu_skip_blanks(t, terms[i].begin, terms[i].end);
        terms[i].end = blanks_before(t, terms[i].begin, terms[i].end);
    }
    return n;
}

/* `flag` cleared (loops indented by `ind`) unless every thread passes the
 * guard. Each of the condition's top-level `&&` terms is checked over the
 * levels it depends on only (`row < N` over the rows, `col < N` over the
 * columns: 32 checks of a 16 x 16 block instead of 256, which cost a
 * 512^2 product 5% on one core): all threads pass a conjunction of such
 * terms where each term holds for its levels' every value, the threads
 * being every combination of the levels' values. */
static const char *all_pass(Cpu *C, const Interchange *x, const char *flag, const char *ind)
{
    const unsigned *mask = again_levels(C, x);
    Range terms[MAX_TERMS];
    size_t n = guard_terms(C, x->guard->head, terms);
    const char *s = "";
    for (size_t i = 0; i < n; i++) {
        unsigned m = levels_in(C, x, mask, x->nagain, terms[i]);
        const char *loops = "", *in = oklc_arena_printf(C->a, "%s  ", ind), *decls = "";
        for (size_t l = 0; l < x->nlevels; l++) {
            const Loop *lp = x->levels[l];
            if (m & (1u << l))
                loops = oklc_arena_printf(C->a, "%s%sfor (%s %s = 0; %s < %s; ++%s)", loops,
                                          *loops ? " " : "", oklc_emit_iter_type(C->E, lp),
                                          lp->iter, lp->iter, lp->trips, lp->iter);
        }
        for (size_t j = 0; j < x->nagain; j++)
            if ((mask[j] & ~m) == 0 && !(x->guard && x->again[j]->name_off > x->guard->range.begin))
                decls = oklc_arena_printf(C->a, "%s%s[[maybe_unused]] %s\n", decls, in,
                                          oklc_cpu_declare_alone(C, &C->E->ed, x->again[j]));
        s = oklc_arena_printf(C->a, "%s%s%s%s{\n%s%s  if (!(%s)) %s = false;\n%s}\n", s, ind,
                              loops, *loops ? " " : "", decls, ind, oklc_cpu_render(C, terms[i]),
                              flag, ind);
    }
    return s;
}

/* The block's threads, the slots in use: the values computed once, then
 * the threads (a block whose threads all pass the guard runs without it). */
static const char *block_text(Cpu *C, const Interchange *x, const char *ind)
{
    Buf o;
    oklc_buf_init(&o, C->a);
    once_decls(C, x, x->rows ? NULL : subscripts(C, x, false), &o, ind);
    const char *col = x->panel ? x->panel->cols->iter : NULL;
    if (x->as_written) {                /* a strided slice: no guard, no panel */
        oklc_buf_printf(&o, "%s  if (%s) {\n", ind, enough_rounds(C, x));
        threads(C, x, &o, oklc_arena_printf(C->a, "%s  ", ind));
        /* its lines after the first keep their indentation (ind and more) */
        oklc_buf_printf(&o, "%s  } else {\n%s%s%s  }\n", ind, ind,
                        indented(C, "    ", x->as_written), ind);
        return o.data;
    }
    if (!x->guard) {
        oklc_buf_puts(&o, panel_threads(C, x, 1, col, ind));
        return o.data;
    }
    Interchange all = *x;
    all.guard = NULL;
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    oklc_buf_printf(&o, "%sbool _occa_all = true;\n%s%sif (_occa_all) {\n", in,
                    all_pass(C, x, "_occa_all", in), in);
    oklc_buf_puts(&o, panel_threads(C, &all, 1, col, in));
    oklc_buf_printf(&o, "%s} else {\n", in);
    threads(C, x, &o, in);
    oklc_buf_printf(&o, "%s}\n", in);
    return o.data;
}

/* The tiles of a pair of blocks, every thread passing the guard: rendered
 * with the pair's slots, those edits then undone (the one-block form is
 * rendered after, with its own). */
static const char *paired_tiles(Cpu *C, const Interchange *x, const char *ind)
{
    uint32_t mark = oklc_edits_mark(&C->E->ed);
    use_slots(C, x, oklc_arena_printf(C->a, "[_occa_row][_occa_h][%s]", x->l->iter));
    Interchange all = *x;
    all.guard = NULL;
    Buf b;
    oklc_buf_init(&b, C->a);
    const char *in = oklc_arena_printf(C->a, "%s    ", ind);
    once_decls(C, &all, NULL, &b, in);
    oklc_buf_puts(&b, panel_threads(C, &all, 2,
                                    oklc_arena_printf(C->a, "_occa_pair_%s", x->pair->iter), in));
    oklc_edits_rewind(&C->E->ed, mark);
    return b.data;
}

/* The blocks in pairs where the compiler targets AVX-512 (pair_loop()):
 * the even one of each pair runs the tiles of both (`paired`, the slots a
 * row of each block wide), the odd one nothing; a block without a
 * partner, or a pair whose threads do not all pass the guard, runs as
 * one block after the other (`single`). Elsewhere, one block. */
static void pairs(Cpu *C, const Interchange *x, const char *paired, const char *single, Buf *o,
                  const char *ind)
{
    const Loop *p = x->pair;
    const char *it = p->iter, *type = oklc_emit_iter_type(C->E, p), *by = pair_step(C, p);
    const char *end = oklc_cpu_loop_end(C, p), *in = oklc_arena_printf(C->a, "%s  ", ind);
    /* the partner's iteration exists (as `it + step < end`, without overflow) */
    const char *partner = *by ? oklc_arena_printf(C->a, "(%s) - %s > %s", end, it, p->stride)
                              : oklc_arena_printf(C->a, "%s + 1 < (%s)", it, end);
    oklc_buf_printf(o, "#if defined(__AVX512F__) /* blocks of %s in pairs: tile rows two "
                       "vectors wide */\n", it);
    oklc_buf_printf(o, "%sif ((%s - (%s)) %% %s == 0) {\n", in, it, oklc_cpu_op(C, p->start),
                    *by ? oklc_arena_printf(C->a, "(2%s)", by) : "2");
    oklc_buf_printf(o, "%s  const %s _occa_pair_%s = %s;\n", in, type, it, it);
    oklc_buf_printf(o, "%s  bool _occa_pair = %s;\n", in, partner);
    if (x->guard) {
        const char *in2 = oklc_arena_printf(C->a, "%s    ", in);
        oklc_buf_printf(o, "%s  for (int _occa_h = 0; _occa_pair && _occa_h < 2; ++_occa_h) {\n"
                           "%s[[maybe_unused]] const %s %s = _occa_pair_%s + _occa_h%s;\n%s%s  }\n",
                        in, in2, type, it, it, by, all_pass(C, x, "_occa_pair", in2), in);
    }
    oklc_buf_printf(o, "%s  if (_occa_pair) {\n%s%s  } else {\n", in, paired, in);
    oklc_buf_printf(o, "%s    for (int _occa_h = 0; _occa_h < (%s ? 2 : 1); "
                       "++_occa_h) {\n%s      const %s %s = _occa_pair_%s + _occa_h%s;\n%s%s    }\n"
                       "%s  }\n%s}\n#else\n%s#endif\n",
                    in, partner, in, type, it, it, by, single, in, in, in, single);
}

/* ---- what the fusion asks (cpu_fuse.c) ----------------------------------------------- */

int64_t oklc_cpu_tiled_sums(Cpu *C, const Loop *l)
{
    Interchange x;
    return qualifies(C, l, &x) && !x.strided && x.rows && x.sums_only && !x.guard &&
                   x.at == 0 && x.body->nkids == 1 && !pays(C, &x)
               ? row_bytes(&x)
               : INT64_MAX;
}

bool oklc_cpu_blockable(Cpu *C, const Stmt *f)
{
    bool hinted = false;
    Counted k;
    return is_for(C, f, &hinted) && !hinted && counted_loop(C, f, &k);
}

bool oklc_cpu_panel_fits(Cpu *C, const Loop *top, const Stmt *f)
{
    Counted c;
    long long start;
    bool hinted;
    if (is_for(C, f, &hinted) && f->kind == ST_OTHER)
        f = f->kids[0];
    return panel_outers(C, top) && numbered_loop(C, f, &c, &start);
}

bool oklc_cpu_in_order(Cpu *C, const Var *v, Range r)
{
    const char *t = C->E->nz->text;
    size_t uses = 0;
    if (!only_added(C, v, r, &uses))
        return false;
    for (size_t i = 0; i < v->nrefs; i++)
        if (oklc_in_range(r, v->refs[i].begin) &&
            inner_subscript(t, r.begin, v->refs[i].begin, r.end))
            return false;
    return true;
}

/* Is l the loop over the tiles of a flat @tile that a relay wrote
 * (oklc_cpu_relay_tile: its iterator _occa_tile_...)? */
static bool is_relaid_tile(const Loop *l)
{
    return l && l->kind == LOOP_OUTER && l->iter && !strncmp(l->iter, "_occa_tile_", 11);
}

/* The number of such a loop among those of the text, in their order; -1
 * if `outer` is none. */
static int relaid_tile(const Cpu *C, const Loop *outer)
{
    if (!is_relaid_tile(outer))
        return -1;
    int n = 0;
    for (size_t k = 0; k < C->E->m->nkernels; k++) {
        const Kernel *kn = C->E->m->kernels[k];
        for (size_t i = 0; i < kn->nloops; i++) {
            const Loop *l = kn->loops[i];
            if (l == outer)
                return n;
            n += is_relaid_tile(l);
        }
    }
    return -1;
}

bool oklc_cpu_interchange(Cpu *C, const Loop *l, bool early)
{
    Interchange x;
    if (!qualifies(C, l, &x) || (early && !x.rows && !x.guard))
        return false;
    const char *why = pays(C, &x);
    if (why) {
        if (!early) {
            oklc_edit_before(&C->E->ed, x.levels[0]->stmt.begin,
                             oklc_arena_printf(C->a, "/* kept as written: %s */\n%s", why,
                                               oklc_emit_indent(C->E, x.levels[0]->stmt.begin)));
            oklc_cpu_decision(C, x.f->head, false,
                              oklc_arena_printf(C->a, "kept as written: %s", why));
        }
        return false;
    }
    if (x.strided)
        x.least_rounds = ROUNDS_PER_ITEM * (int64_t)split_work(C, &x, &x.split);
    /* one level: the range is computed before the loop over the threads,
     * where the iterator of an outer level of the nest is not */
    if (x.nlevels != 1 || x.rows || x.strided ||
        !oklc_cpu_guard_range(C, l, x.f, &x.from, &x.to))
        x.from = x.to = NULL;
    /* as written with AVX-512: no pairs (for AVX-512 only), no panel */
    x.pair = x.wide_as_written ? NULL : pair_loop(C, &x);
    x.panel = x.wide_as_written ? NULL : panel_of(C, &x);
    if (x.rows && x.wide_as_written)
        vec_push(C->a, &C->tiled_narrow, x.levels[0]->stmt);
    else if (x.rows)
        vec_push(C->a, &C->tiled, x.levels[0]->stmt);
    const Loop *outer = x.l->parent;
    while (outer && outer->kind == LOOP_INNER)
        outer = outer->parent;
    int tile = relaid_tile(C, outer);
    if (tile >= 0)
        C->E->tiles_interchanged = oklc_idset_add(C->a, C->E->tiles_interchanged, (uint32_t)tile);
    oklc_cpu_decision(
        C, x.f->head, false,
        x.rows ? oklc_arena_printf(C->a, "interchanged with the threads%s, in tiles of %s%s%s%s%s%s",
                                   without_wide(&x), tiles_of(C, &x), held_text(C, &x),
                                   as_written_text(&x),
                                   x.pair ? oklc_arena_printf(C->a, ", the blocks of %s in pairs "
                                                              "when compiled for AVX-512",
                                                              x.pair->iter)
                                          : "",
                                   blocks(C, &x, &(Counted){0})
                                       ? oklc_arena_printf(C->a, ", the loop in blocks when it "
                                                           "spans more than %d values",
                                                           LONG_LOOP)
                                       : "",
                                   x.panel ? oklc_arena_printf(C->a, ", the rows of %s packed "
                                                               "once per column of blocks (the "
                                                               "@outer loops swapped)",
                                                               x.panel->array)
                                           : "")
        : x.strided ? oklc_arena_printf(C->a, "interchanged with the threads: the threads' "
                                              "slices in rounds%s%s", rounds_text(C, &x),
                                        few_rounds_text(C, &x))
        : x.from    ? "interchanged with the threads: their neighbouring elements inside, the "
                      "guard of the loop's body as their bounds"
                    : "interchanged with the threads: their neighbouring elements inside");
    x.prefetch = x.rows || x.strided ? "" : oklc_cpu_prefetch(C, x.levels, x.nlevels, x.f);
    const Loop *top = x.levels[0];
    const char *ind = oklc_emit_indent(C->E, top->stmt.begin);
    const char *written = x.wide_as_written ? oklc_cpu_render(C, top->stmt) : NULL;
    x.as_written = x.least_rounds ? oklc_cpu_render(C, top->stmt) : NULL;
    if (x.panel)
        use_panel(C, &x);
    const char *paired = x.pair ? paired_tiles(C, &x, ind) : NULL;
    Interchange one = x;
    one.pair = NULL;
    use_slots(C, &one, x.rows ? oklc_arena_printf(C->a, "[_occa_row][%s]", l->iter)
                              : subscripts(C, &one, true));
    if (x.rows)
        use_sums(C, &x);
    const char *single = block_text(C, &one, ind);
    Buf o;
    oklc_buf_init(&o, C->a);
    if (x.rows)
        oklc_buf_printf(&o, "{ /* each thread's loop interchanged with the threads%s, in tiles "
                        "of %s whose values stay in registers%s%s */\n", without_wide(&x),
                        tiles_of(C, &x), held_text(C, &x), as_written_text(&x));
    else
        oklc_buf_printf(&o, "{ /* each thread's loop interchanged with the threads: the "
                        "threads' neighbouring elements in the inner loop%s */\n",
                        x.from ? ", the guard in it as their bounds" : "");
    if (written)
        oklc_buf_printf(&o, "#if defined(__AVX512F__)\n%s%s\n#else\n", ind, written);
    if (paired)
        pairs(C, &x, paired, single, &o, ind);
    else
        oklc_buf_puts(&o, single);
    oklc_buf_printf(&o, "%s%s}", written ? "#endif\n" : "", ind);
    oklc_edit_replace(&C->E->ed, top->stmt.begin, top->stmt.end, o.data);
    vec_push(C->a, &C->interchanged, l);
    return true;
}

/* `for (T i = start; i < end; ++i; @tile(S, @outer, @inner)) { ... }`
 * without a barrier runs on a CPU as the plain loop over i (cpu.c): where
 * its body has a loop of its own (a sum per i down a column), that walks
 * each i's elements one after the other. Written again as the tiles it
 * stands for, the iterations as threads under a guard,
 *
 *   @outer for (int _occa_tile_i = 0; _occa_tile_i < (end - (start) + S - 1) / S; ...)
 *     @inner for (int _occa_i = 0; _occa_i < S; ++_occa_i) {
 *       const T i = (start) + _occa_tile_i * S + _occa_i;
 *       if (i < end) { ... }
 *     }
 *
 * the second translation interchanges the loop with the threads (the
 * guard as above). Only a @tile counting up by 1 with `<` and a number as
 * its size; the second translation is used only when it translates. */
/* Can the flat @tile l (its loop over tiles) be relaid: counting up by 1
 * with `<`, a number as its size, at most MAX_THREADS? */
static bool relayable(Cpu *C, const Loop *l)
{
    return l && l->tile_part == 1 && oklc_cpu_flat_tile(l) && !l->down && l->cmp == CMP_LT &&
           !strcmp(l->tile_other->stride, "1") && l->tile_value > 0 &&
           l->tile_value <= MAX_THREADS && l->node && l->node->nkids &&
           oklc_emit_spec_of(C->E, l->attr);
}

/* The flat @tile that is the whole body of the flat @tile l, relaid with
 * it (a 2D tile written as two, `@tile(16, @outer(1), @inner(1))` around
 * `@tile(16, @outer(0), @inner(0))`), else NULL: not one whose header
 * uses l's iterator (a triangle's `j < i`: the tiles of j would need i). */
static const Loop *tile_pair(Cpu *C, const Loop *l)
{
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    if (body->kind == ST_COMPOUND && body->nkids == 1)
        body = body->kids[0];
    const Loop *in = body->kind == ST_FOR ? body->loop : NULL;
    const Loop *two = in && in->tile_part == 2 ? in->tile_other : NULL;
    return relayable(C, two) && two->node == body && !oklc_cpu_header_uses(C, two, l) &&
                   l->tile_value * two->tile_value <= MAX_THREADS
               ? two
               : NULL;
}

/* The head that replaces the flat @tile l's text up to its body:
 * `[[okl::outer]]` over the tiles, `[[okl::inner]]` in a tile, i
 * declared, `if (i < end) `; with `two`, both tiles' loops, the outer one
 * of the pair over `_occa_tiles_i` (one relaid tile, relaid_tile()). */
static const char *relay_head(Cpu *C, const Loop *l, const Loop *two, const char *ind)
{
    const Loop *t[2] = {l, two};
    int n = two ? 2 : 1;
    Buf o;
    oklc_buf_init(&o, C->a);
    const char *pad = "";
    for (int i = 0; i < n; i++, pad = oklc_arena_printf(C->a, "%s  ", pad))
        oklc_buf_printf(&o, "%s%s[[okl::outer(%d)]] for (int _occa_tile%s_%s = 0; _occa_tile%s_%s "
                        "< ((%s) - (%s) + %lld - 1) / %lld; ++_occa_tile%s_%s) {\n",
                        i ? ind : "", pad, t[i]->axis, i + 1 < n ? "s" : "", t[i]->iter,
                        i + 1 < n ? "s" : "", t[i]->iter, t[i]->bound, t[i]->start,
                        (long long)t[i]->tile_value, (long long)t[i]->tile_value,
                        i + 1 < n ? "s" : "", t[i]->iter);
    for (int i = 0; i < n; i++, pad = oklc_arena_printf(C->a, "%s  ", pad))
        oklc_buf_printf(&o, "%s%s[[okl::inner(%d)]] for (int _occa_%s = 0; _occa_%s < %lld; "
                        "++_occa_%s) {\n",
                        ind, pad, t[i]->tile_other->axis, t[i]->iter, t[i]->iter,
                        (long long)t[i]->tile_value, t[i]->iter);
    for (int i = 0; i < n; i++)
        oklc_buf_printf(&o, "%s%sconst %s %s = (%s) + _occa_tile%s_%s * %lld + _occa_%s;\n", ind,
                        pad, oklc_emit_iter_type(C->E, t[i]), t[i]->iter, t[i]->start,
                        i + 1 < n ? "s" : "", t[i]->iter, (long long)t[i]->tile_value,
                        t[i]->iter);
    oklc_buf_printf(&o, "%s%sif (%s < (%s)%s%s%s%s) ", ind, pad, l->iter, l->bound,
                    two ? " && " : "", two ? two->iter : "", two ? " < " : "",
                    two ? oklc_arena_printf(C->a, "(%s)", two->bound) : "");
    return o.data;
}

/* Does the compiler unroll the plain loop st whole where it stands (at
 * most 32 iterations in all)? Then the flat @tile around it vectorises
 * over its iterations as written. */
static bool unrolled_whole(const Stmt *st)
{
    int64_t n = whole_count(st);
    return n >= 0 && n <= 32;
}

bool oklc_cpu_relay_tile(Cpu *C, const Loop *l)
{
    if (!relayable(C, l))
        return false;
    const Loop *up = l->parent && l->parent->tile_part == 2 ? l->parent->tile_other : l->parent;
    if (relayable(C, up) && tile_pair(C, up) == l)
        return false;                   /* relaid with the tile around it */
    const Loop *two = tile_pair(C, l), *last = two ? two : l;
    const Stmt *body = last->node->kids[last->node->nkids - 1];
    bool hinted = false, loop = false, whole = false;
    for (size_t i = 0; body->kind == ST_COMPOUND && i < body->nkids; i++)
        if (is_for(C, body->kids[i], &hinted)) {
            bool w = unrolled_whole(body->kids[i]);
            loop |= !w;
            whole |= w;
        }
    const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
    if (!loop && whole) {
        const char *kept = "kept as written: the loops of its iterations have constant counts "
                           "that the compiler unrolls whole, vectorising over the iterations";
        oklc_edit_before(&C->E->ed, l->stmt.begin,
                         oklc_arena_printf(C->a, "/* %s */\n%s", kept, ind));
        oklc_cpu_decision(C, (Range){l->header.begin + 1, l->header.end - 1}, false, kept);
    }
    if (!loop)
        return false;
    /* what this translation says, where it stays (the next one
     * interchanged no loop in the tiles: oklc.c) */
    const char *why = "kept as written: written as its tiles, no loop in its iterations "
                      "would be interchanged with the threads";
    oklc_edit_before(&C->E->ed, l->stmt.begin, oklc_arena_printf(C->a, "/* %s */\n%s", why, ind));
    oklc_cpu_decision(C, (Range){l->header.begin + 1, l->header.end - 1}, false, why);
    unsigned number = C->E->tiles++;
    if (C->E->tiles_all_kept || oklc_idset_has(C->E->tiles_kept, number))
        return false;
    Edits *ed = oklc_cpu_relaid(C);
    C->E->tile_relays++;
    oklc_edit_replace(ed, oklc_emit_spec_of(C->E, l->attr)->off, body->range.begin,
                      relay_head(C, l, two, ind));
    /* the loops' closing braces; one stays where the text closes l's
     * own body around the pair */
    const Stmt *outer_body = l->node->kids[l->node->nkids - 1];
    int close = two ? 4 - (outer_body->kind == ST_COMPOUND) : 2;
    Buf o;
    oklc_buf_init(&o, C->a);
    for (int i = close - 1; i >= 0; i--)
        oklc_buf_printf(&o, "\n%s%*s}", ind, 2 * i, "");
    oklc_edit_after(ed, body->range.end, o.data);
    return true;
}
