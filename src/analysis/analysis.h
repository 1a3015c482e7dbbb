/*
 * analysis.h - what the kernel does with memory, thread by thread: the
 * stage after the checks (sema/), before the backends.
 *
 *   expr.c     expressions of the normalized text as trees (expr.h)
 *   affine.c   expressions of the normalized text as isl's affine
 *              expressions and constraints, exact or refused
 *   flow.c     a block (an @outer loop with @inner loops) as a tree of
 *              sequences, branches, loops, threads, barriers and the
 *              accesses of its @shared memory; which accesses a barrier
 *              (or the block's start) reaches without passing another
 *   races.c    the accesses of two threads to one element between two
 *              barriers, as isl sets: races (errors), the barriers each
 *              block needs (the automatic ones, @nobarrier, dropped ones)
 *   private.c  a block's variable each thread writes before it reads it:
 *              one per thread, as on a GPU
 *   stats.c    what each kernel costs (oklc stats), with poly.c (polynomials
 *              of the parameters) and sum.c (sums over isl sets: formulas
 *              piecewise in the parameters for guarded nests)
 *
 * The results go into the model: Loop.barrier_after, Barrier.dropped,
 * Var.per_thread. Where a subscript or a bound is not affine the analysis
 * says so (a note under -Wall) and the block keeps the rule's barriers.
 */
#ifndef OKLC_ANALYSIS_H
#define OKLC_ANALYSIS_H

#include "../parse/model.h"
#include "expr.h"   /* expr.c, affine.c: expressions as trees, as isl text */

/* Analyses every kernel of m; false after an error (a race, a needed
 * barrier removed). Of a CPU relay's text (o->own_text) only the block
 * variables one per thread: its barriers are the user's, judged before. */
OKLC_INTERNAL bool oklc_analyze(oklc_ctx *c, Model *m, const ParseOptions *o);

/* ---- private.c ---------------------------------------------------------------------------- */

/* The block variables of k an @inner loop writes per thread: one per
 * thread (Var.per_thread) where each thread reads what it wrote, accepted
 * with a warning where the block reads it after all threads wrote it,
 * else an error. */
OKLC_INTERNAL void oklc_private_vars(oklc_ctx *c, const Model *m, Kernel *k);

/* ---- poly.c ------------------------------------------------------------------------------ */

enum { POLY_MAXV = 6 };       /* variables in one term */

typedef struct Term {
    int64_t  num, den;        /* the coefficient num/den, den > 0 */
    uint8_t  nv;
    uint16_t var[POLY_MAXV];  /* ascending */
    uint8_t  exp[POLY_MAXV];
} Term;

typedef struct Poly {
    size_t n;
    Term   t[];
} Poly;

/* A number: the integer k, or (p not NULL) a polynomial. */
typedef struct Num {
    const Poly *p;
    int64_t     k;
} Num;

typedef struct Polys {
    Arena *arena;
    bool   overflow;          /* a coefficient or a degree went past what is kept */
    char **chunks;            /* where polynomials live: taken back by a release */
    size_t nchunks, cur, used;
} Polys;

typedef struct PolyMark {
    size_t chunk, used;
} PolyMark;

/* Where the polynomials made from now on start; all of them taken back
 * (the caller keeps none); does p lie among them? */
OKLC_INTERNAL PolyMark oklc_poly_mark(const Polys *P);
OKLC_INTERNAL void oklc_poly_release(Polys *P, PolyMark m);
OKLC_INTERNAL bool oklc_poly_after(const Polys *P, PolyMark m, const Poly *p);

OKLC_INTERNAL Num oklc_num_var(Polys *P, int v);
OKLC_INTERNAL bool oklc_num_const(Num a, int64_t *k);
OKLC_INTERNAL Num oklc_num_add(Polys *P, Num a, Num b);
OKLC_INTERNAL Num oklc_num_sub(Polys *P, Num a, Num b);
OKLC_INTERNAL Num oklc_num_mul(Polys *P, Num a, Num b);
OKLC_INTERNAL Num oklc_num_scale(Polys *P, Num a, int64_t num, int64_t den);
OKLC_INTERNAL bool oklc_num_uses(Num a, int v);
/* a with variable v replaced by value */
OKLC_INTERNAL Num oklc_num_subst(Polys *P, Num a, int v, Num value);
/* The sum of a over v = 0 .. n-1 (n a number without v). */
OKLC_INTERNAL Num oklc_num_sum(Polys *P, Num a, int v, Num n);
OKLC_INTERNAL void oklc_num_print(Num a, Buf *b, const char *(*name)(void *ctx, int v),
                                  void *ctx);

/* ---- flow.c ------------------------------------------------------------------------------ */

typedef enum FlowKind { F_SEQ, F_IF, F_LOOP, F_INNER, F_BARRIER, F_ACCESS } FlowKind;

/* A node of a block's tree. */
typedef struct Flow {
    FlowKind      kind;
    struct Flow  *parent;
    int           index;      /* among the parent's kids */
    int           depth;
    struct Flow **kids;       /* F_IF: then, else (if any); F_LOOP, F_INNER: the body */
    size_t        nkids;
    const Stmt   *st;
    const Loop   *loop;       /* F_LOOP: the header (NULL: not a for); F_INNER: the
                                 innermost @inner level of the statement */
    int64_t       trips;      /* F_LOOP: its count, -1 if not known */
    int           id;         /* F_LOOP: its number; F_BARRIER, F_ACCESS: the index */
    bool          must;       /* every way through it passes a barrier that is on */
    int           musts_before;   /* of its earlier siblings, how many must */
    int           musts_in;       /* of its kids, how many must */
    bool          forced;     /* holds a barrier under a condition of the threads: taken
                                 as all threads would (what the user means) */
} Flow;

/* A use of an element of @shared memory by a thread. */
typedef struct Access {
    const Var  *var;
    uint32_t    off;          /* the use */
    Range       subs[8];      /* its subscripts */
    int         nsubs;
    bool        write, read, atomic;
    Range       value;        /* what `= value` stores (else empty) */
    bool        uniform;      /* a value every thread computes the same (races.c) */
    bool        maybe_uniform;    /* one read from what each thread keeps (@exclusive) */
    Flow       *at;
} Access;

/* A barrier of a block: the user's, or one a GPU may need after a top
 * @inner loop (`after`). */
typedef struct FlowBarrier {
    Flow       *at;
    Barrier    *user;
    Loop       *after;
    bool        on;
    bool        fixed;        /* stays: a function's last barrier */
    bool        warp;         /* a warp's: keeps no race from being proven, but no
                                 barrier a block needs may count on it */
} FlowBarrier;

/* How an access's iteration of a loop follows the iteration of the start of
 * its barrier interval. */
typedef enum Rel { REL_SAME, REL_NEXT, REL_LATER, REL_FIRST, REL_ANY } Rel;

typedef struct Block {
    Kernel      *k;
    Loop        *outer;
    Flow        *root;
    VEC(Access)      acc;
    VEC(FlowBarrier) bars;
    VEC(Flow *)      loops;   /* the F_LOOP nodes, by id */
    VEC(Access)      writes;  /* elements of the kernel's arrays written (not @atomic);
                                 each `at` a leaf outside the tree */
    int          axes;        /* the axes its @inner loops use: bit a */
    const char  *refused;     /* why it is not analysed (NULL: it is) */
    uint32_t     refused_at;
} Block;

/* The blocks of a kernel, with their accesses (refused where one cannot
 * be read). */
OKLC_INTERNAL Block **oklc_flow_blocks(oklc_ctx *c, const Model *m, Kernel *k, size_t *n);
/* Recomputes `must` for the barriers that are on. */
OKLC_INTERNAL void oklc_flow_must(Block *b);
/* The ways an access is reached from barrier x (NULL: the block's start)
 * without passing one that is on: per way, the loop whose next iteration
 * it goes to (NULL: none, the same iterations); false if there is no way.
 * `backs` has room for one more than the loops around the access. */
OKLC_INTERNAL bool oklc_flow_reach(const Flow *x, const Flow *e, const Flow **backs, int *nways);
/* Can two threads take ways b1 to e1 and b2 to e2 from one run of x? Not
 * when one goes round a loop around x and the other leaves it: a loop that
 * holds a barrier runs as many times in every thread (the checks see to
 * that). */
OKLC_INTERNAL bool oklc_flow_together(const Flow *x, const Flow *e1, const Flow *b1,
                                      const Flow *e2, const Flow *b2);
/* The iteration of loop l (around e) that way `back` reaches. */
OKLC_INTERNAL Rel oklc_flow_rel(const Flow *x, const Flow *back, const Flow *l);
/* The subscripts [..][..] of the text from p (blanks skipped) to end, at
 * most `most`: their count; *after where the text goes on after them. */
OKLC_INTERNAL int oklc_subscripts(const oklc_ctx *c, uint32_t p, uint32_t end, Range *subs,
                                  int most, uint32_t *after);
/* Does a GPU backend put a barrier after @inner loop l (the rule's, or
 * where the analysis found one needed)? */
OKLC_INTERNAL bool oklc_implicit_barrier(const Kernel *k, const Loop *l);
/* Is f (or is it inside) g? */
OKLC_INTERNAL bool oklc_flow_within(const Flow *f, const Flow *g);

/* ---- memory.c ----------------------------------------------------------------------------- */

typedef enum MemUse { MEM_NONE, MEM_LOAD, MEM_STORE, MEM_BOTH } MemUse;

/* What an operation of Model.ops does to memory (elements only). */
typedef struct OpMem {
    MemUse use;               /* MEM_NONE: not an element, or one of a thread's own */
    bool   shared;            /* of @shared memory (else global) */
    bool   atomic;            /* the element an @atomic statement updates */
    bool   constant;          /* in a constexpr initializer: no run-time operation */
} OpMem;

/* What an operation of Model.ops does to memory (elements only). */

/* Per index of m->ops, for the operations of kernel k (the others zero). */
OKLC_INTERNAL OpMem *oklc_op_memory(oklc_ctx *c, const Model *m, const Kernel *k);
/* The first of m->ops (sorted by position) at or after off. */
OKLC_INTERNAL size_t oklc_first_op(const Model *m, uint32_t off);

/* ---- sum.c ------------------------------------------------------------------------------- */

#include <isl/polynomial.h>

/* f summed over its last set dimension, or over all of them: piecewise in
 * the parameters. NULL where the sum is refused (a set whose points for
 * fixed outer values are not an interval; a floor() of the dimension
 * summed). */
OKLC_INTERNAL isl_pw_qpolynomial *oklc_sum_last(__isl_take isl_pw_qpolynomial *f);
OKLC_INTERNAL isl_pw_qpolynomial *oklc_sum_all(__isl_take isl_pw_qpolynomial *f);
/* "N where N >= 1; 0 otherwise": each piece simplified on its domain, pieces
 * of one polynomial joined. False when there are too many pieces. */
OKLC_INTERNAL bool oklc_sum_print(__isl_keep isl_pw_qpolynomial *pw, Buf *b);

/* ---- stats.c ------------------------------------------------------------------------------ */

/* Each kernel's counts (oklc stats), as JSON or text into out; the model
 * was parsed with ParseOptions.count_ops. False when out of memory. */
OKLC_INTERNAL bool oklc_stats_report(oklc_ctx *c, Model *m, const oklc_stats_options *o,
                                     Buf *out);

#endif
