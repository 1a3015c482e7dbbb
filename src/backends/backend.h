/*
 * backend.h - the backends: one table each, and what they share.
 *
 *   backends.c  the list; what every backend does (attributes deleted,
 *               @restrict, @dim indexing, entry points, instances)
 *   cpu.c       what serial and OpenMP share: OKL's loops as loops
 *   cpu_split.c @inner loops split at the barriers inside them
 *   cpu_shape.c loops shaped for a CPU: guards as bounds, memory order
 *   serial.c    the serial table
 *   openmp.c    the OpenMP table
 *
 * A backend records edits against the normalized text (src/emit/); the
 * output is its preamble, the edited text, then its tail.
 */
#ifndef OKLC_BACKEND_H
#define OKLC_BACKEND_H

#include "../emit/emit.h"

typedef struct Backend Backend;

/* One transpilation in progress. */
typedef struct Emit {
    oklc_ctx         *c;
    const Normalized *nz;
    Model            *m;
    const Backend    *be;
    Edits             ed;
    VEC(KernelOut)    kernels;    /* what the metadata lists, in order */
    Buf               tail;       /* after the user's code: entry points */
} Emit;

struct Backend {
    const char  *name;            /* as in -b serial */
    oklc_backend id;
    const char  *restrict_kw;     /* what @restrict becomes */
    const char  *includes;        /* first lines of the output */
    const char  *preamble;        /* before the user's code */
    bool         openmp;          /* CPU: @outer loops on OpenMP threads */
    bool (*translate)(Emit *E);   /* records the edits of the whole file */
};

/* NULL for a backend not built yet. */
OKLC_INTERNAL const Backend *oklc_backend_get(oklc_backend id);

/* ---- backends.c: shared by all ---------------------------------------------- */

/* Deletes the [[okl::...]] attributes, rewrites @restrict and @dim accesses. */
OKLC_INTERNAL void oklc_emit_attributes(Emit *E);
OKLC_INTERNAL void oklc_emit_dims(Emit *E, const Kernel *k);
/* The kernels and template instances the output provides, with their
 * entry symbols; reports instances that name no template kernel. */
OKLC_INTERNAL bool oklc_emit_kernel_list(Emit *E);
/* `return` in an @outer or @inner loop ends that iteration (of a block or
 * a thread), not the kernel; where the loops stay loops (CPUs) it becomes
 * `continue` when that loop is the nearest, else (and for `continue` too
 * where the loops are gone) a jump to the end of the iteration. Reports
 * what cannot be translated. */
OKLC_INTERNAL void oklc_emit_jumps(Emit *E, const Kernel *k, bool loops_stay);
/* Deletes a statement, and its line when nothing else is on it. */
OKLC_INTERNAL void oklc_emit_delete_stmt(Emit *E, uint32_t begin, uint32_t end);
/* The [[...]] that holds an attribute. */
OKLC_INTERNAL const SpecRange *oklc_emit_spec_of(const Emit *E, const Attr *a);
/* Calls fn for every directive line `#name args` of the normalized text. */
OKLC_INTERNAL void oklc_emit_directives(Emit *E, const char *name,
                                        void (*fn)(Emit *E, Range line, const char *args,
                                                   void *data),
                                        void *data);
OKLC_INTERNAL bool oklc_ident_char(char ch);
/* The indentation of the line that holds `off`. */
OKLC_INTERNAL const char *oklc_emit_indent(Emit *E, uint32_t off);
/* s, in parentheses unless it is one token. */
OKLC_INTERNAL const char *oklc_emit_operand(Emit *E, const char *s);

static inline bool oklc_in_range(Range r, uint32_t off)
{
    return off >= r.begin && off < r.end;
}

/* ---- cpu.c, cpu_split.c, cpu_shape.c: serial and OpenMP ---------------------------- */

extern const char oklc_cpu_prelude[];   /* cpu_prelude.hpp, embedded */

typedef struct Block Block;

/* One kernel being translated for a CPU. */
typedef struct Cpu {
    Emit   *E;
    Kernel *k;
    Arena  *a;
    bool    ok;
    VEC(Block *) blocks;
} Cpu;

/* The innermost @outer level of a nest and the @inner loops in its body:
 * the threads of one block. */
struct Block {
    Loop       *outer;
    VEC(Loop *) tops;           /* the top @inner loops */
    const char *extent[3];      /* threads per axis: a number or a name; NULL: unused */
    const char *extent_decls;   /* declarations of the names ("" if all are numbers) */
    uint32_t    extents_at;     /* where they go: before the first use of a slot */
};

/* s, in parentheses unless it is one token */
static inline const char *oklc_cpu_op(Cpu *C, const char *s)
{
    return oklc_emit_operand(C->E, s);
}

/* cpu.c: the translation, tiles, blocks and their slots, OpenMP */
OKLC_INTERNAL bool oklc_cpu_translate(Emit *E);
OKLC_INTERNAL void oklc_cpu_error(Cpu *C, uint32_t off, const char *fmt, ...) OKLC_PRINTF(3, 4);
OKLC_INTERNAL const char *oklc_cpu_render(Cpu *C, Range r);
OKLC_INTERNAL const char *oklc_cpu_iter_type(Cpu *C, const Loop *l);
/* A @tile: the loop over tiles, the end of the current tile. */
OKLC_INTERNAL const char *oklc_cpu_tile_head(Cpu *C, const Loop *l);
OKLC_INTERNAL const char *oklc_cpu_tile_end(Cpu *C, const Loop *l);
OKLC_INTERNAL void oklc_cpu_open_level(Cpu *C, const Loop *l, Buf *b);
OKLC_INTERNAL bool oklc_cpu_flat_tile(const Loop *l);
OKLC_INTERNAL Attr *oklc_cpu_exclusive(const Var *v);
/* The slot of a thread: its @inner levels by axis, at an offset. */
OKLC_INTERNAL void oklc_cpu_threads_at(Cpu *C, const Block *b, uint32_t off,
                                       const Loop *by_axis[3]);
OKLC_INTERNAL const char *oklc_cpu_slot(Cpu *C, const Block *b, const Loop *by_axis[3]);
OKLC_INTERNAL const char *oklc_cpu_slot_count(Cpu *C, const Block *b);
/* The block's thread counts must be known from `at` on. */
OKLC_INTERNAL void oklc_cpu_need_slots(Block *b, uint32_t at);
OKLC_INTERNAL const char *oklc_cpu_declaration(Cpu *C, const Var *v, const char *name);
OKLC_INTERNAL const char *oklc_cpu_init_slot(Cpu *C, const Var *v, const char *at);
/* Is the offset in an @inner loop that a barrier splits? */
OKLC_INTERNAL bool oklc_cpu_in_split(Cpu *C, uint32_t off);

/* cpu_split.c: an @inner loop with a barrier inside, split at it */
OKLC_INTERNAL void oklc_cpu_split(Cpu *C, Block *b, const Loop *top);

/* cpu_shape.c: loops shaped for a CPU (guards as bounds, grid-stride
 * loops in memory order, GPU-style tiled nests by axis) */
OKLC_INTERNAL void oklc_cpu_guard_bounds(Cpu *C, const Loop *l);
OKLC_INTERNAL void oklc_cpu_guarded_select(Cpu *C, const Loop *l);
OKLC_INTERNAL void oklc_cpu_grid_stride(Cpu *C, const Loop *l);
/* Returns the new order of the nest's loops (their number), or 0. */
OKLC_INTERNAL size_t oklc_cpu_reorder_nest(Cpu *C, const Loop *top, const Loop **order);
/* Does loop l's header use the iterator of loop `of`? */
OKLC_INTERNAL bool oklc_cpu_header_uses(Cpu *C, const Loop *l, const Loop *of);

#endif
