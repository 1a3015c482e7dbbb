/*
 * cpu.h - the CPU backend's own declarations (serial and OpenMP), for the
 * cpu*.c files only; the rest of oklc sees oklc_cpu_translate in backend.h.
 *
 * The files call down, never up:
 *
 *   cpu.c              the driver: a kernel's passes, in order
 *   cpu_split.c  cpu_fuse.c  cpu_reduce.c  cpu_shape.c  cpu_calls.c
 *   cpu_transpose.c  cpu_hoist.c
 *                      one pass each, side by side (the fusion asks the
 *                      interchange whether the fused loop runs in tiles)
 *   cpu_interchange.c  the interchange
 *   cpu_counts.c       counting copies of @shared arrays (cpu_shape.c's)
 *   cpu_apart.c        uses of an argument proven apart from elements
 *                      (cpu_reduce.c's), with isl
 *   cpu_base.c         rendering, slots, declarations, queries: what all
 *                      of them use
 */
#ifndef OKLC_CPU_H
#define OKLC_CPU_H

#include "backend.h"

typedef struct Block Block;

/* One kernel being translated for a CPU. */
/* An array kept for all of a thread's blocks, declared (zeroed, or set
 * once) before the top-level @outer loop `top`; with OpenMP each thread
 * has its own (firstprivate: `name`, names separated by commas). Or, with
 * `flush`, a variable OpenMP reduces (cpu_reduce.c): the updates of one
 * element, `element` by combination `op`, which `flush` makes after the
 * nest. */
typedef struct Scratch {
    const Loop *top;
    const char *name, *decl;
    const char *flush, *element;
    char        op;
} Scratch;

typedef struct Cpu {
    Emit   *E;
    Kernel *k;
    Arena  *a;
    bool    ok;
    bool    omp;                 /* OpenMP: @outer loops take `omp parallel for` */
    bool    rewrite;             /* the rewrites that pay (oklc_set_cpu_rewrites) */
    VEC(Block *) blocks;
    VEC(const Atomic *) reduced; /* OpenMP: updates made in a reduction */
    VEC(const Loop *) interchanged; /* innermost @inner loops of nests cpu_interchange.c
                                       rewrote: no other pass may rebuild them */
    bool    panels;              /* the kernel packs an operand's panels (cpu_interchange.c):
                                    its launch is numbered */
    VEC(Range) transposed;       /* the first subscripts of the reads cpu_transpose.c made
                                    of a transposed copy, in text order */
    VEC(Range) tiled;            /* the top @inner loops of the nests cpu_interchange.c
                                    runs in tiles of rows */
    VEC(Range) tiled_narrow;     /* of those, the nests in tiles only where the compiler
                                    does not target AVX-512 (as written where it does) */
    VEC(Scratch) scratch;        /* arrays declared before top-level @outer loops */
    VEC(const Var *) asked;      /* arrays whose next block's rows are asked for
                                    (cpu_prefetch.c) */
} Cpu;

/* The innermost @outer level of a nest and the @inner loops in its body:
 * the threads of one block. */
struct Block {
    Loop       *outer;
    VEC(Loop *) tops;           /* the top @inner loops */
    const char *extent[3];      /* threads per axis: a number or a name; NULL: unused */
    const char *extent_decls;   /* declarations of the names ("" if all are numbers) */
    uint32_t    extents_at;     /* where they go: before the first use of a slot */
    bool        fused;          /* its nests are one (oklc_cpu_fuse) */
};

/* s, in parentheses unless it is one token */
static inline const char *oklc_cpu_op(Cpu *C, const char *s)
{
    return oklc_emit_operand(C->E, s);
}

/* ---- cpu_base.c: rendering, slots, declarations, queries ---------------------------- */

OKLC_INTERNAL void oklc_cpu_error(Cpu *C, uint32_t off, const char *fmt, ...) OKLC_PRINTF(3, 4);
/* A decision of the cost model on the loop whose header is `head`, for
 * `check --dump-model` (Emit.decisions): "kernel K, for (...): what";
 * relaid: its rewrite is in the relaid text (Emit.relaid_decisions). */
OKLC_INTERNAL void oklc_cpu_decision(Cpu *C, Range head, bool relaid, const char *what);
OKLC_INTERNAL const char *oklc_cpu_render(Cpu *C, Range r);
/* A statement with the edits in it, its attributes' pragmas included. */
OKLC_INTERNAL const char *oklc_cpu_render_stmt(Cpu *C, const Stmt *st);
/* An unroll hint of the author's on a loop: where it is (UINT32_MAX:
 * none) and its count ("": unroll whole; NULL: a pragma of a compiler's
 * own, `#pragma GCC unroll 4`, which stays as written). */
typedef struct Hint {
    uint32_t    at;
    const char *count;
    const Loop *attr;           /* @unroll's loop, else NULL */
} Hint;
/* A `#pragma ... unroll ...` on the last line before st that is not
 * blank, or @unroll on st. */
OKLC_INTERNAL Hint oklc_cpu_unroll_hint(Cpu *C, const Stmt *st);
/* An @inner level opened as OKL again, its header from ed */
OKLC_INTERNAL const char *oklc_cpu_okl_level(Cpu *C, Edits *ed, const Loop *l);
/* The input written again for a second translation (Emit.relaid) */
OKLC_INTERNAL Edits *oklc_cpu_relaid(Cpu *C);

/* Text: the first non-blank at or after p (end if none); [b, e) without
 * blanks around it; is r the text s; is the operator at t[p] unary (no
 * operand ends before it, from `from` on); an integer literal's value. */
OKLC_INTERNAL uint32_t oklc_cpu_skip_blanks(const char *t, uint32_t p, uint32_t end);
OKLC_INTERNAL Range oklc_cpu_trimmed(const char *t, uint32_t b, uint32_t e);
OKLC_INTERNAL bool oklc_cpu_text_is(const char *t, Range r, const char *s);
OKLC_INTERNAL bool oklc_cpu_unary(const char *t, uint32_t from, uint32_t p);
OKLC_INTERNAL bool oklc_cpu_literal(const char *s, long long *v);
/* The ')' or ']' that closes the '(' or '[' at o (to if none). */
OKLC_INTERNAL uint32_t oklc_cpu_closing(const char *s, uint32_t o, uint32_t to);
/* The subscripts that follow a use ending at `p`: their ranges, their
 * count (0 when more than `max`); *end: after the last ']'. */
OKLC_INTERNAL size_t oklc_cpu_subscripts(Cpu *C, uint32_t p, Range *sub, size_t max,
                                         uint32_t *end);
/* The first of n items sorted by an offset, their first member (a Ref's
 * `at`, a Range's `begin`), at or after off (n if none): a binary search,
 * so that the passes stay linear in the kernel's size. */
/* qsort's order of Ranges: by their begin. */
OKLC_INTERNAL int oklc_cpu_by_begin(const void *a, const void *b);
OKLC_INTERNAL size_t oklc_cpu_first_at(const void *items, size_t n, size_t size,
                                       uint32_t off);
/* Does r use v (NULL: no)? oklc_refers_in by a binary search. */
OKLC_INTERNAL bool oklc_cpu_uses(const Var *v, Range r);

/* A @tile: the loop over tiles. */
OKLC_INTERNAL const char *oklc_cpu_tile_head(Cpu *C, const Loop *l);
OKLC_INTERNAL void oklc_cpu_open_level(Cpu *C, const Loop *l, Buf *b);
OKLC_INTERNAL bool oklc_cpu_flat_tile(const Loop *l);

/* The block whose innermost @outer loop is `outer`, or NULL. */
OKLC_INTERNAL Block *oklc_cpu_block_of(Cpu *C, const Loop *outer);
/* Is l inside the block's @outer loop? Is l a top @inner loop of a block? */
OKLC_INTERNAL bool oklc_cpu_in_block(const Block *b, const Loop *l);
OKLC_INTERNAL bool oklc_cpu_top_inner(const Loop *l);
/* The block's thread counts must be known from `at` on. */
OKLC_INTERNAL void oklc_cpu_need_slots(Block *b, uint32_t at);
/* The slot of a thread: its @inner levels by axis, at an offset. */
OKLC_INTERNAL void oklc_cpu_threads_at(Cpu *C, const Block *b, uint32_t off,
                                       const Loop *by_axis[3]);
OKLC_INTERNAL const char *oklc_cpu_slot(Cpu *C, const Block *b, const Loop *by_axis[3]);
OKLC_INTERNAL const char *oklc_cpu_slot_count(Cpu *C, const Block *b);

OKLC_INTERNAL const char *oklc_cpu_declaration(Cpu *C, const Var *v, const char *name);
/* "T v = init;": v of a declaration of several names declared alone, its
 * initializer from ed; NULL when it cannot be (static, thread_local, a
 * type Clang spells with parentheses). */
OKLC_INTERNAL const char *oklc_cpu_declare_alone(Cpu *C, Edits *ed, const Var *v);
OKLC_INTERNAL const char *oklc_cpu_init_slot(Cpu *C, const Var *v, const char *name,
                                             const char *at);
/* One value per thread: @exclusive, or a block's variable each thread
 * writes before it reads it (analysis/private.c). */
OKLC_INTERNAL bool oklc_cpu_exclusive(const Var *v);

/* The name of the transposed copy of @shared matrix v (cpu_transpose.c). */
OKLC_INTERNAL const char *oklc_cpu_transposed_name(Cpu *C, const Var *v);
/* Is the offset in the first subscript of a read of a transposed copy
 * (`i` in `_occa_t_s[i][m]`, which reads element (m, i) of its array)? */
OKLC_INTERNAL bool oklc_cpu_transposed_at(Cpu *C, uint32_t off);
/* Does r hold such a read? */
OKLC_INTERNAL bool oklc_cpu_transposed_in(Cpu *C, Range r);
/* Is the offset in an @inner loop that a barrier splits? */
OKLC_INTERNAL bool oklc_cpu_in_split(Cpu *C, uint32_t off);
/* x + 1, folded when x is a number. */
OKLC_INTERNAL const char *oklc_cpu_plus_one(Cpu *C, const char *x);
/* The first value of an upward loop's iterator past its range: its bound,
 * plus one for <=. */
OKLC_INTERNAL const char *oklc_cpu_loop_end(Cpu *C, const Loop *l);
/* Is `inner` the whole body of `outer`, a rectangular nest? */
OKLC_INTERNAL bool oklc_cpu_collapsible(Cpu *C, const Loop *outer, const Loop *inner);
/* Does loop l's header use the iterator of loop `of`? */
OKLC_INTERNAL bool oklc_cpu_header_uses(Cpu *C, const Loop *l, const Loop *of);
OKLC_INTERNAL const Var *oklc_cpu_iter_var(Cpu *C, const Loop *l);
/* The variable a for statement declares in its header, or NULL. */
OKLC_INTERNAL const Var *oklc_cpu_for_var(Cpu *C, const Stmt *f);
/* Is a use of v at offset off (v may be NULL)? */
OKLC_INTERNAL bool oklc_cpu_refers_at(const Var *v, uint32_t off);
/* The kernel's local or parameter used at off, else NULL. */
OKLC_INTERNAL const Var *oklc_cpu_var_at(Cpu *C, uint32_t off);
/* Does an assignment or an increment (=, +=, ++, ...) follow at p? */
OKLC_INTERNAL bool oklc_cpu_assigned_at(Cpu *C, uint32_t p);
/* Does the code in r write v (or take its address)? Is the use of a
 * variable at ref a write (or its address taken)? */
OKLC_INTERNAL bool oklc_cpu_written_in(Cpu *C, const Var *v, Range r);
OKLC_INTERNAL bool oklc_cpu_written_at(Cpu *C, Range ref);
/* Is the expression free of side effects and calls, but of pure library
 * functions (min, max, sqrt, ...: cpu_base.c), and, unless `reads`, of
 * subscripts and dereferences? The same of the input's text in r. */
OKLC_INTERNAL bool oklc_cpu_pure(Cpu *C, const char *expr, bool reads);
OKLC_INTERNAL bool oklc_cpu_pure_in(Cpu *C, Range r, bool reads);
/* Does r use l's iterator or a per-thread (@exclusive) value? */
OKLC_INTERNAL bool oklc_cpu_per_thread(Cpu *C, Range r, const Loop *l);
/* Is there an @atomic in r (threads may update the same element)? Is
 * `at` an update made in an OpenMP reduction (cpu_reduce.c)? */
OKLC_INTERNAL bool oklc_cpu_has_atomic(Cpu *C, Range r);
OKLC_INTERNAL bool oklc_cpu_reduced(const Cpu *C, const Atomic *at);
/* Is v an argument whose elements nothing in the kernel changes: const,
 * and no argument it writes may alias them (v, or every argument with
 * elements it may write, @restrict)? */
OKLC_INTERNAL bool oklc_cpu_unchanged_array(Cpu *C, const Var *v);
/* The kid of st whose range holds off (kids are in text order), or NULL. */
OKLC_INTERNAL const Stmt *oklc_cpu_kid_at(const Stmt *st, uint32_t off);
/* A use `ref` of an array in statement st: an element (`dims` subscripts,
 * in sub) read, or set with `=`, or anything else (an address, ++, +=, an
 * argument a call may take by reference, an @atomic, a row). */
typedef enum ElemUse { USE_OTHER, USE_STORE, USE_READ } ElemUse;
enum { OKLC_CPU_MAX_DIMS = 8 };    /* the most subscripts it reads */
OKLC_INTERNAL ElemUse oklc_cpu_element_use(Cpu *C, const Stmt *st, Range ref, size_t dims,
                                           Range *sub);
/* A return, break, continue or goto in st (or a barrier, if `barriers`)? */
OKLC_INTERNAL bool oklc_cpu_has_jump(const Stmt *st, bool barriers);
/* The integer divisions in r by a value known only at run time (`%`, or
 * `/` between integer variables and numbers), the slowest of a thread's
 * integer operations and not vectorised: their number; the text of the
 * first `max` of them, without blanks ("gi%N", "x[k]%n"), into texts
 * (NULL: only counted). */
OKLC_INTERNAL size_t oklc_cpu_divisions(Cpu *C, Range r, const char **texts, size_t max);
/* `for (T n = base + t; cond; n += S)` over the threads t of l: */
typedef struct Strided {
    const char *n;       /* the element's variable */
    const char *decl;    /* "T n" */
    const char *base;    /* the first thread's first element */
    Range       cond;
    Range       step;    /* S */
    bool        by_threads;   /* S is l's count T: the threads' slices interleave */
} Strided;
OKLC_INTERNAL bool oklc_cpu_strided(Cpu *C, const Loop *l, const Stmt *f, Strided *s);

/* ---- cpu_counts.c: counting copies (below cpu_shape.c) ------------------------------ */

/* The loop f (`for (decl = base; cond; ++n) body`, the grid-stride loop
 * run in order) with copies of the @shared arrays it counts into; NULL
 * when it has none. Copies kept for all of a thread's blocks go in
 * C->scratch. */
OKLC_INTERNAL const char *oklc_cpu_counting_loop(Cpu *C, const Stmt *f, const char *decl,
                                                 const char *base, Range cond);

/* ---- cpu_prefetch.c: the next block's rows asked for (below cpu_interchange.c) ------- */

/* Statements (a line each, not indented) to run first in each iteration of
 * f, the loop interchanged with the threads of the @inner nest `levels`:
 * they ask for the lines of the next block that the iteration reads of
 * this one, where it reads rows of an array a page apart; "" elsewhere. */
OKLC_INTERNAL const char *oklc_cpu_prefetch(Cpu *C, const Loop *const *levels, size_t nlevels,
                                            const Stmt *f);
/* After the nest of block b that reads the block's part of an array, a
 * page to four, up front (later nests compute): the next block's part
 * asked for. After the loops are shaped; not in a fused block. */
OKLC_INTERNAL void oklc_cpu_prefetch_part(Cpu *C, const Block *b);

/* ---- cpu_shape.c: loops shaped for a CPU -------------------------------------------- */

/* Guards as bounds, grid-stride loops in memory order, GPU-style tiled
 * nests by axis. Each is true when it changed the loop. */
OKLC_INTERNAL bool oklc_cpu_guard_bounds(Cpu *C, const Loop *l);
/* The range [*start, *end) of the @inner loop l run inside f, a thread's
 * loop interchanged with it, narrowed by the guard ending f's body (the
 * if gone where the bounds say it all); false if it has no such guard. */
OKLC_INTERNAL bool oklc_cpu_guard_range(Cpu *C, const Loop *l, const Stmt *f, const char **start,
                                        const char **end);
OKLC_INTERNAL bool oklc_cpu_guarded_select(Cpu *C, const Loop *l);
OKLC_INTERNAL bool oklc_cpu_grid_stride(Cpu *C, const Loop *l);
/* The innermost loop of a tiled nest run as one loop with the @outer
 * loop of its axis (done when true; the nest's reordering drops that
 * @outer loop). */
OKLC_INTERNAL bool oklc_cpu_merge_tiles(Cpu *C, const Loop *l);
/* Returns the new order of the nest's loops (their number), or 0. */
OKLC_INTERNAL size_t oklc_cpu_reorder_nest(Cpu *C, const Loop *top, const Loop **order);

/* ---- cpu_split.c: an @inner loop with a barrier inside, split at it ------------------ */

OKLC_INTERNAL void oklc_cpu_split(Cpu *C, Block *b, const Loop *top);

/* ---- cpu_interchange.c: per-thread loops interchanged with the threads --------------- */

/* A per-thread loop interchanged with the @inner loops around it (true
 * when done; early: only where rows of threads run in tiles or the loop
 * is under a guard of the threads, which comes before merging an @inner
 * loop with its @outer loop and guards as bounds) */
OKLC_INTERNAL bool oklc_cpu_interchange(Cpu *C, const Loop *l, bool early);
/* Would the per-thread loop of the @inner nest whose innermost level is l
 * run in tiles of rows (interchanged with the threads), doing nothing but
 * update the tile's values, the thread doing nothing else? The bytes of a
 * row of the tile's values if so, else INT64_MAX. */
OKLC_INTERNAL int64_t oklc_cpu_tiled_sums(Cpu *C, const Loop *l);
/* Could the plain loop f, the tiles' loop, run in blocks of its values
 * (a counted loop without an unroll hint)? */
OKLC_INTERNAL bool oklc_cpu_blockable(Cpu *C, const Stmt *f);
/* Could the tiles of the nest whose top @inner loop is `top`, around the
 * plain loop f of a known count (the loop of a staged product's reading
 * nest), read their other operand from a panel packed per column of
 * blocks (the @outer loops around it allow it)? */
OKLC_INTERNAL bool oklc_cpu_panel_fits(Cpu *C, const Loop *top, const Stmt *f);
/* Does r reach neighbouring elements as v steps: each use of v in it a
 * term added to an index, in no subscript but an array's last? */
OKLC_INTERNAL bool oklc_cpu_in_order(Cpu *C, const Var *v, Range r);
/* A flat @tile whose body has a loop of its own per iteration, written
 * into the second translation as @outer and @inner loops under a guard,
 * for the interchange (true when written). */
OKLC_INTERNAL bool oklc_cpu_relay_tile(Cpu *C, const Loop *l);

/* ---- cpu_fuse.c: a block's nests fused ----------------------------------------------- */

/* The @inner nests of a block without barriers, whose @shared arrays only
 * stage memory the kernel cannot write, written into the second
 * translation as one nest reading that memory in place (true when
 * written). */
OKLC_INTERNAL bool oklc_cpu_fuse(Cpu *C, const Block *b);

/* ---- cpu_calls.c: a block's loops compiled as loops ---------------------------------- */

/* A kernel with a loop of a block's threads that only copies or sets
 * memory, and none that copies or sets memory and does more: declared
 * _occa_short_loops (no calls of memcpy or memset for such loops); the
 * decision either way in Emit.decisions. */
OKLC_INTERNAL void oklc_cpu_short_loops(Cpu *C);

/* ---- cpu_transpose.c: a @shared matrix read across the threads ---------------------- */

/* Each @shared matrix that a loop of each thread reads across the
 * threads (s[i][m], i the innermost thread index) kept a second time
 * transposed, where its stores are not in such loops; the decision
 * either way in Emit.decisions. */
OKLC_INTERNAL void oklc_cpu_transpose(Cpu *C);

/* ---- cpu_hoist.c: a @shared array set alike in every block ------------------------- */

/* Each @shared array whose one store sets it alike in every block,
 * declared and set once before the top-level @outer loop (C->scratch);
 * the decision either way in Emit.decisions. After the fusion. */
OKLC_INTERNAL void oklc_cpu_hoist(Cpu *C);

/* ---- cpu_reduce.c: OpenMP reductions ------------------------------------------------- */

/* OpenMP reductions for @atomic updates of an argument's elements. The
 * clauses for nest `top` ("" if none), and in *guard the test that the
 * nest runs at all, to put before it; marks the updates. */
OKLC_INTERNAL const char *oklc_cpu_reductions(Cpu *C, const Loop *top, const char **guard);

/* ---- cpu_apart.c: uses proven apart from a reduction's elements ------------------------ */

/* Elements of an argument: arg[terms... + r], r from lo to hi, the terms
 * ranges of the text joined by + (none: 0). */
typedef struct Span {
    Range   terms[8];
    size_t  nterms;
    int64_t lo, hi;
} Span;

/* Are the elements `a` a use of an argument at `use` (in the nest of
 * top) reaches in each iteration apart from the elements `b`, in every
 * iteration of every thread? b is made of numbers and arguments only.
 * Proven with isl; false if not proven. */
OKLC_INTERNAL bool oklc_cpu_apart(Cpu *C, const Loop *top, uint32_t use, const Span *a,
                                  const Span *b);

#endif
