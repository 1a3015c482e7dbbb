/*
 * cpu.c - what the serial and OpenMP backends share: OKL's loops stay
 * loops, in their order, on one core or with the @outer loops on OpenMP
 * threads.
 *
 * On a CPU one @outer iteration (a block) runs its @inner loops one after
 * the other, each to completion, which satisfies every barrier between
 * them. What needs work:
 *
 *   @tile       a loop over tiles and a loop in the tile; the bound check
 *               is a precomputed end, so the element loop stays countable
 *               (and vectorisable)
 *   @exclusive  an array with one slot per @inner iteration (thread),
 *               indexed by the thread's position: x + X * (y + Y * z), as
 *               on a GPU, so values survive from one @inner loop to the next
 *   @barrier    inside an @inner loop: the loop is split at the barrier
 *               (every iteration runs the part before it first); loops and
 *               conditions around the barrier move out of the @inner loops,
 *               and locals that live across the split get one slot per
 *               iteration
 *   return      inside an @outer or @inner loop ends that iteration only
 *
 * With OpenMP, `#pragma omp parallel for` goes on each top-level @outer
 * loop (collapsed over a perfect rectangular @outer nest), @atomic becomes
 * `omp atomic` unless it updates memory that belongs to one block (a
 * @shared, @exclusive or local variable: one thread owns it), and a block
 * is `omp critical`.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct Block Block;

typedef struct Cpu {
    Emit   *E;
    Kernel *k;
    Arena  *a;
    bool    ok;
    VEC(Block *) blocks;
    VEC(const Loop *) labelled;     /* loops with a label at the end of their body */
    VEC(const char *) labels;
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

/* Is l inside the block (an @inner loop of its @outer level)? */
static bool in_block(const Block *b, const Loop *l)
{
    for (const Loop *p = l->parent; p; p = p->parent)
        if (p == b->outer)
            return true;
    return false;
}

static void error(Cpu *C, uint32_t off, const char *fmt, ...) OKLC_PRINTF(3, 4);

static void error(Cpu *C, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    oklc_model_error(C->E->c, off, "%s", b.data);
    C->ok = false;
}

static const char *render(Cpu *C, Range r)
{
    return oklc_edits_text(&C->E->ed, r.begin, r.end);
}

static const char *op(Cpu *C, const char *s)
{
    return oklc_emit_operand(C->E, s);
}

static bool contains(Range r, uint32_t off)
{
    return off >= r.begin && off < r.end;
}

/* ---- loops as CPU loops ---------------------------------------------------------- */

/* The iterator's declared type: "int" of "int i = 0". */
static const char *iter_type(Cpu *C, const Loop *l)
{
    const char *t = C->E->nz->text;
    uint32_t b = l->init.begin, e = l->iter_off;
    while (b < e && isspace((unsigned char)t[b]))
        b++;
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    return oklc_arena_strndup(C->a, t + b, e - b);
}

static const char *tiled(Cpu *C, const Loop *l)
{
    return oklc_arena_printf(C->a, "_occa_tiled_%s", l->iter);
}

/* The loop over tiles: from start to bound in steps of size * stride. */
static const char *tile_head(Cpu *C, const Loop *l)
{
    const char *tv = tiled(C, l);
    Cmp cmp = l->cmp == CMP_NE ? (l->down ? CMP_GT : CMP_LT) : l->cmp;
    return oklc_arena_printf(C->a, "for (%s %s = %s; %s %s %s; %s %s %s)", iter_type(C, l), tv,
                             l->start, tv, oklc_cmp_spelling(cmp), l->bound, tv,
                             l->down ? "-=" : "+=", op(C, l->stride));
}

/* What ends the loop in a tile: the tile's end, or the bound when it
 * comes first (computed once, so the loop's trip count is known). */
static const char *tile_end_decl(Cpu *C, const Loop *l)
{
    if (!l->tile_check)
        return "";
    const char *tv = tiled(C, l);
    const Loop *t = l->tile_other;
    const char *lim = oklc_arena_printf(C->a, "%s %s %s", tv, l->down ? "-" : "+", t->stride);
    const char *bound = op(C, l->bound);
    if (l->cmp == CMP_LE)
        bound = oklc_arena_printf(C->a, "%s + 1", bound);
    else if (l->cmp == CMP_GE)
        bound = oklc_arena_printf(C->a, "%s - 1", bound);
    return oklc_arena_printf(C->a, "const %s _occa_end_%s = %s %s %s ? %s : %s;", iter_type(C, l),
                             l->iter, lim, l->down ? ">" : "<", bound, lim, bound);
}

/* The loop in a tile. */
static const char *element_head(Cpu *C, const Loop *l)
{
    const char *tv = tiled(C, l);
    const char *end = l->tile_check
                          ? oklc_arena_printf(C->a, "_occa_end_%s", l->iter)
                          : oklc_arena_printf(C->a, "%s %s %s", tv, l->down ? "-" : "+",
                                              l->tile_other->stride);
    const char *step = !strcmp(l->stride, "1")
                           ? oklc_arena_printf(C->a, "%s%s", l->down ? "--" : "++", l->iter)
                           : oklc_arena_printf(C->a, "%s %s %s", l->iter, l->down ? "-=" : "+=",
                                               op(C, l->stride));
    return oklc_arena_printf(C->a, "for (%s %s = %s; %s %s %s; %s)", iter_type(C, l), l->iter, tv,
                             l->iter, l->down ? ">" : "<", end, step);
}

/* A level's "for (...) {" (and the tile's end, after a loop over tiles). */
static void open_level(Cpu *C, const Loop *l, Buf *b)
{
    if (l->tile_part == 1)
        oklc_buf_printf(b, "%s { %s", tile_head(C, l), tile_end_decl(C, l->tile_other));
    else if (l->tile_part == 2)
        oklc_buf_printf(b, "%s {", element_head(C, l));
    else
        oklc_buf_printf(b, "for %s {", render(C, l->header));
}

/* A @tile for statement: the loop over tiles around the loop in a tile. */
static void tile_loops(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->tile_part != 1 || !l->analyzed)
            continue;
        const Loop *e = l->tile_other;
        const char *end = tile_end_decl(C, e);
        const char *ind = oklc_emit_indent(C->E, l->stmt.begin);
        Buf b;
        oklc_buf_init(&b, C->a);
        oklc_buf_printf(&b, "%s {\n%s  ", tile_head(C, l), ind);
        if (*end)
            oklc_buf_printf(&b, "%s\n%s  ", end, ind);
        oklc_buf_puts(&b, element_head(C, e));
        oklc_edit_replace(&C->E->ed, l->stmt.begin, l->header.end, b.data);
        oklc_edit_after(&C->E->ed, l->stmt.end, oklc_arena_printf(C->a, "\n%s}", ind));
    }
}

/* ---- blocks, threads and slots -------------------------------------------------------- */

static bool is_top_inner(const Loop *l)
{
    return l->kind == LOOP_INNER && l->parent && l->parent->kind == LOOP_OUTER;
}

static Block *block_of(Cpu *C, const Loop *outer)
{
    for (size_t i = 0; i < C->blocks.len; i++)
        if (C->blocks.data[i]->outer == outer)
            return C->blocks.data[i];
    return NULL;
}

static void block_extents(Cpu *C, Block *b);

static void find_blocks(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        Loop *l = C->k->loops[i];
        if (!is_top_inner(l))
            continue;
        Block *b = block_of(C, l->parent);
        if (!b) {
            b = oklc_arena_alloc(C->a, sizeof *b);
            b->outer = l->parent;
            b->extents_at = UINT32_MAX;
            vec_push(C->a, &C->blocks, b);
        }
        vec_push(C->a, &b->tops, l);
    }
    for (size_t i = 0; i < C->blocks.len; i++)
        block_extents(C, C->blocks.data[i]);
}

/* The threads of a block along each axis: the largest count of its
 * @inner loops on that axis (a number, or an expression computed once). */
typedef struct Counts {
    bool        used, unknown;
    int64_t     max;
    VEC(const char *) exprs;
} Counts;

static void count_inner(Cpu *C, const Loop *l, Counts *n)
{
    if (l->kind == LOOP_INNER && l->axis >= 0 && l->axis < 3) {
        Counts *c = &n[l->axis];
        c->used = true;
        if (l->trips_known) {
            if (l->ntrips > c->max)
                c->max = l->ntrips;
        } else {
            c->unknown = true;
            bool seen = false;
            for (size_t i = 0; i < c->exprs.len; i++)
                seen |= !strcmp(c->exprs.data[i], l->trips);
            if (!seen)
                vec_push(C->a, &c->exprs, l->trips);
        }
    }
    for (size_t i = 0; i < l->nkids; i++)
        count_inner(C, l->kids[i], n);
}

static void block_extents(Cpu *C, Block *b)
{
    Counts n[3];
    memset(n, 0, sizeof n);
    for (size_t i = 0; i < b->tops.len; i++)
        count_inner(C, b->tops.data[i], n);
    Buf decls;
    oklc_buf_init(&decls, C->a);
    for (int a = 0; a < 3; a++) {
        if (!n[a].used)
            continue;
        if (!n[a].unknown) {
            b->extent[a] = oklc_arena_printf(C->a, "%lld", (long long)(n[a].max > 0 ? n[a].max : 1));
            continue;
        }
        /* the largest of the counts, at least 1 */
        b->extent[a] = oklc_arena_printf(C->a, "_occa_threads_%c", "xyz"[a]);
        oklc_buf_printf(&decls, "long %s = %lld;", b->extent[a],
                        (long long)(n[a].max > 1 ? n[a].max : 1));
        for (size_t i = 0; i < n[a].exprs.len; i++) {
            const char *x = n[a].exprs.data[i];
            oklc_buf_printf(&decls, " if ((long)(%s) > %s) %s = %s;", x, b->extent[a],
                            b->extent[a], x);
        }
        oklc_buf_putc(&decls, ' ');
    }
    b->extent_decls = decls.data ? decls.data : "";
}

/* Where a local of the kernel is declared (for the availability checks). */
static bool declared_in(const Var *v, Range r)
{
    return contains(r, v->name_off);
}

/* The extents must be computable where they are declared: the counts of
 * the @inner loops may use only what is declared before that point. */
static void check_extents(Cpu *C, Block *b)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off < b->extents_at)
            continue;
        for (size_t j = 0; j < C->k->nloops; j++) {
            const Loop *l = C->k->loops[j];
            if (l->kind != LOOP_INNER || l->trips_known || !in_block(b, l))
                continue;
            for (size_t r = 0; r < v->nrefs; r++)
                if (contains(l->header, v->refs[r].begin) && !declared_in(v, l->header)) {
                    error(C, v->refs[r].begin,
                          "on CPUs a block keeps one slot per @inner iteration from line %u "
                          "on, so the number of iterations must be known there; this count "
                          "uses '%s', declared later (line %u): declare it before",
                          oklc_model_line(C->E->c, b->extents_at), v->name,
                          oklc_model_line(C->E->c, v->name_off));
                    return;
                }
        }
    }
}

/* Declares the block's extents before the first thing that needs them. */
static void declare_extents(Cpu *C, Block *b)
{
    if (b->extents_at == UINT32_MAX || !*b->extent_decls)
        return;
    check_extents(C, b);
    oklc_edit_before(&C->E->ed, b->extents_at,
                     oklc_arena_printf(C->a, "%s\n%s", b->extent_decls,
                                       oklc_emit_indent(C->E, b->extents_at)));
}

static void need_extents(Block *b, uint32_t at)
{
    if (at < b->extents_at)
        b->extents_at = at;
}

/* The iteration's position in its loop: 0, 1, 2, ... */
static const char *position(Cpu *C, const Loop *l)
{
    const char *it = l->tile_part == 1 ? tiled(C, l) : l->iter;
    const char *from = l->tile_part == 2 ? tiled(C, l) : op(C, l->start);
    const char *stride = op(C, l->stride);
    const char *d = !strcmp(from, "0") && !l->down
                        ? it
                        : l->down ? oklc_arena_printf(C->a, "(%s - %s)", from, it)
                                  : oklc_arena_printf(C->a, "(%s - %s)", it, from);
    if (!strcmp(stride, "1"))
        return d;
    return oklc_arena_printf(C->a, "%s / %s", d, stride);
}

/* The @inner levels of the block around an offset, by axis. */
static void threads_at(Cpu *C, const Block *b, uint32_t off, const Loop *by_axis[3])
{
    by_axis[0] = by_axis[1] = by_axis[2] = NULL;
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->kind == LOOP_INNER && contains(l->stmt, off) && in_block(b, l) &&
            l->axis >= 0 && l->axis < 3)
            by_axis[l->axis] = l;
    }
}

/* The slot of the thread at an offset: x + X * (y + Y * z), over the
 * axes the block uses. */
static const char *slot(Cpu *C, const Block *b, const Loop *by_axis[3])
{
    const char *s = NULL, *scale = NULL;
    for (int a = 0; a < 3; a++) {
        if (!b->extent[a])
            continue;
        if (by_axis[a]) {
            const char *p = position(C, by_axis[a]);
            const char *term = scale ? oklc_arena_printf(C->a, "%s * %s", scale, op(C, p)) : p;
            s = s ? oklc_arena_printf(C->a, "%s + %s", s, term) : term;
        }
        scale = scale ? oklc_arena_printf(C->a, "%s * %s", scale, b->extent[a]) : b->extent[a];
    }
    return s ? s : "0";
}

static const char *slot_count(Cpu *C, const Block *b)
{
    const char *n = NULL;
    for (int a = 0; a < 3; a++)
        if (b->extent[a])
            n = n ? oklc_arena_printf(C->a, "%s * %s", n, b->extent[a]) : b->extent[a];
    return n ? n : "1";
}

/* ---- declarations with one slot per thread ---------------------------------------------- */

/* Clang's spelling of v's type without its top-level const, as the
 * declaration of `name` (arrays: "float name[4]"). */
static const char *declaration(Cpu *C, const Var *v, const char *name)
{
    const char *t = v->type.spelling;
    if (!strncmp(t, "const ", 6) && (!v->type.pointer || v->type.array))
        t += 6;
    size_t n = strlen(t);
    if (v->type.pointer && v->type.is_const && n > 6 && !strcmp(t + n - 6, " const"))
        n -= 6;
    const char *br = memchr(t, '[', n);
    if (br)
        return oklc_arena_printf(C->a, "%.*s%s%.*s", (int)(br - t), t, name,
                                 (int)(n - (size_t)(br - t)), br);
    return oklc_arena_printf(C->a, "%.*s%s%s", (int)n, t,
                             n && t[n - 1] == '*' ? "" : " ", name);
}

/* v[s] = its initializer (arrays through a temporary). */
static const char *init_slot(Cpu *C, const Var *v, const char *at)
{
    const char *init = render(C, v->init);
    if (v->type.array) {
        const char *tmp = declaration(C, v, "_occa_init");
        const char *form = v->init_form == '=' ? " = " : "";
        return oklc_arena_printf(C->a, "{ %s%s%s; __builtin_memcpy(%s[%s], _occa_init, "
                                 "sizeof _occa_init); }",
                                 tmp, form, init, v->name, at);
    }
    if (v->init_form == '(')
        return oklc_arena_printf(C->a, "%s[%s] = %s%s;", v->name, at,
                                 declaration(C, v, ""), init);
    return oklc_arena_printf(C->a, "%s[%s] = %s;", v->name, at, init);
}

static Attr *exclusive_of(const Var *v)
{
    return v->exclusive ? v->exclusive : v->typedef_var ? v->typedef_var->exclusive : NULL;
}

/* The end of the subscript that follows a use ("f" in "f[k]"), or 0. */
static uint32_t subscript_end(Cpu *C, uint32_t off)
{
    const char *t = C->E->nz->text;
    size_t n = C->E->nz->len;
    while (off < n && isspace((unsigned char)t[off]))
        off++;
    if (off >= n || t[off] != '[' || (off + 1 < n && t[off + 1] == '['))
        return 0;
    int depth = 0;
    for (uint32_t i = off; i < n; i++) {
        if (t[i] == '[' || t[i] == '(' || t[i] == '{')
            depth++;
        else if ((t[i] == ']' || t[i] == ')' || t[i] == '}') && --depth == 0)
            return t[i] == ']' ? i + 1 : 0;
    }
    return 0;
}

/* An @exclusive array whose every use is subscripted gets the slot last
 * (f[k][slot]), so the @inner loop walks it with stride 1; others get it
 * first (e[slot]). */
static bool slot_last(Cpu *C, const Var *v)
{
    if (!v->type.array || v->init_form)
        return false;
    for (size_t r = 0; r < v->nrefs; r++)
        if (!subscript_end(C, v->refs[r].end))
            return false;
    return true;
}

static void exclusive_var(Cpu *C, Var *v)
{
    Block *b = v->loop ? block_of(C, v->loop) : NULL;
    if (!b)
        return;                   /* no @inner loop uses it */
    uint32_t at = v->decl_stmt ? v->decl_stmt->range.begin : v->range.begin;
    need_extents(b, at);
    bool last = slot_last(C, v);
    for (size_t r = 0; r < v->nrefs; r++) {
        const Loop *by_axis[3];
        uint32_t off = v->refs[r].begin;
        threads_at(C, b, off, by_axis);
        const Loop *inner = NULL;
        for (int a = 0; a < 3; a++)
            if (by_axis[a] && (!inner || by_axis[a]->level > inner->level))
                inner = by_axis[a];
        if (!inner) {
            error(C, off, "@exclusive '%s' is used outside the @inner loops; each @inner "
                  "iteration has its own '%s', so use it inside them", v->name, v->name);
            return;
        }
        if (inner->nkids) {
            error(C, off, "on CPUs @exclusive '%s' can only be used in the innermost @inner "
                  "loops: here the @inner loop at line %u runs once for all the threads of "
                  "the loops inside it",
                  v->name, oklc_model_line(C->E->c, inner->stmt.begin));
            return;
        }
        const char *s = oklc_arena_printf(C->a, "[%s]", slot(C, b, by_axis));
        uint32_t end = last ? subscript_end(C, v->refs[r].end) : v->refs[r].end;
        oklc_edit_after(&C->E->ed, end, s);
    }
    const char *count = oklc_arena_printf(C->a, "[%s]", slot_count(C, b));
    oklc_edit_after(&C->E->ed, last ? v->declarator_end : v->name_off + (uint32_t)strlen(v->name),
                    count);
    if (v->init_form) {
        if (v->type.array) {
            error(C, v->init.begin, "on CPUs an @exclusive array cannot have an initializer; "
                  "assign its elements in an @inner loop");
            return;
        }
        /* every thread starts with the value */
        oklc_edit_replace(&C->E->ed, v->declarator_end, v->range.end, "");
        uint32_t stmt_end = v->decl_stmt ? v->decl_stmt->range.end : v->range.end;
        oklc_edit_after(&C->E->ed, stmt_end,
                        oklc_arena_printf(C->a, " for (long _occa_s = 0; _occa_s < %s; "
                                          "++_occa_s) %s",
                                          slot_count(C, b), init_slot(C, v, "_occa_s")));
    }
}

/* ---- barriers: splitting @inner loops ----------------------------------------------------- */

typedef enum PlanKind { PLAN_REGION, PLAN_FOR, PLAN_WHILE, PLAN_DO, PLAN_IF } PlanKind;

/* How a split @inner loop runs: regions of code without a barrier, each
 * in all its @inner loops, and the loops and conditions around barriers,
 * moved out of the @inner loops. */
typedef struct Plan Plan;
typedef VEC(Plan *) PlanList;
struct Plan {
    PlanKind     kind;
    Range        text;        /* a region's code */
    const Loop **levels;      /* the @inner levels around it, outermost first */
    size_t       nlevels;
    const Stmt  *st;          /* a moved statement */
    PlanList     body, orelse;
};

typedef struct Split {
    Block       *b;
    const Loop  *top;
    const Stmt  *stmt;        /* the for statement of the top @inner loop */
    uint32_t     barrier_line;
    VEC(Range)   regions;
} Split;

static void plan_body(Cpu *C, Split *S, const Stmt *body, const Loop **lv, size_t nlv,
                      PlanList *out);

static void add_region(Cpu *C, Split *S, uint32_t b, uint32_t e, const Loop **lv, size_t nlv,
                       PlanList *out)
{
    Plan *p = oklc_arena_alloc(C->a, sizeof *p);
    p->kind = PLAN_REGION;
    p->text = (Range){b, e};
    p->levels = lv;
    p->nlevels = nlv;
    vec_push(C->a, out, p);
    vec_push(C->a, &S->regions, p->text);
}

/* The @inner levels a for statement adds (a @tile may add two). */
static size_t inner_levels(Cpu *C, const Stmt *st, const Loop **lv, size_t nlv, const Loop ***out)
{
    const Loop *l = st->loop;
    const Loop *add[2];
    size_t n = 0;
    if (l->tile_part == 2 && l->tile_other->kind == LOOP_INNER)
        add[n++] = l->tile_other;
    add[n++] = l;
    const Loop **v = oklc_arena_alloc(C->a, (nlv + n) * sizeof *v);
    for (size_t i = 0; i < nlv; i++)
        v[i] = lv[i];
    memcpy(v + nlv, add, n * sizeof *v);
    *out = v;
    return nlv + n;
}

static void plan_moved(Cpu *C, Split *S, const Stmt *st, const Loop **lv, size_t nlv,
                       PlanList *out)
{
    Plan *p = oklc_arena_alloc(C->a, sizeof *p);
    p->st = st;
    switch (st->kind) {
    case ST_FOR: p->kind = PLAN_FOR; break;
    case ST_WHILE: p->kind = PLAN_WHILE; break;
    case ST_DO: p->kind = PLAN_DO; break;
    case ST_IF: p->kind = PLAN_IF; break;
    default:
        error(C, st->range.begin, "on CPUs a @barrier inside this statement cannot be split "
              "from the @inner loop around it; move the barrier out of it");
        return;
    }
    /* its head reads nothing an @inner iteration declares: the checks
     * reject a barrier under a condition on such a variable */
    if (st->nkids > 0)
        plan_body(C, S, st->kids[0], lv, nlv, &p->body);
    if (st->kind == ST_IF && st->nkids > 1)
        plan_body(C, S, st->kids[1], lv, nlv, &p->orelse);
    vec_push(C->a, out, p);
}

/* A statement list, cut at its barriers. */
static void plan_body(Cpu *C, Split *S, const Stmt *body, const Loop **lv, size_t nlv,
                      PlanList *out)
{
    const Stmt *const *kids = &body;
    size_t nkids = 1;
    Range in = body->range;
    if (body->kind == ST_COMPOUND) {
        kids = (const Stmt *const *)body->kids;
        nkids = body->nkids;
        in = (Range){body->range.begin + 1, body->range.end - 1};
    }
    uint32_t pos = in.begin;
    for (size_t i = 0; i < nkids; i++) {
        const Stmt *k = kids[i];
        if (!k->has_barrier)
            continue;
        add_region(C, S, pos, k->range.begin, lv, nlv, out);
        pos = k->range.end;
        if (k->kind == ST_NULL && k->barrier) {
            continue;
        } else if (k->kind == ST_FOR && k->loop && k->loop->kind == LOOP_INNER) {
            const Loop **deeper;
            size_t n = inner_levels(C, k, lv, nlv, &deeper);
            plan_body(C, S, k->kids[k->nkids - 1], deeper, n, out);
        } else if (k->kind == ST_COMPOUND) {
            plan_body(C, S, k, lv, nlv, out);
        } else {
            plan_moved(C, S, k, lv, nlv, out);
            const char *t = C->E->nz->text;
            uint32_t q = pos;
            while (q < in.end && isspace((unsigned char)t[q]))
                q++;
            if (k->kind == ST_DO && q < in.end && t[q] == ';')
                pos = q + 1;
        }
    }
    add_region(C, S, pos, in.end, lv, nlv, out);
}

static int region_of(const Split *S, uint32_t off)
{
    for (size_t i = 0; i < S->regions.len; i++)
        if (contains(S->regions.data[i], off))
            return (int)i;
    return -1;
}

/* Jumps that would leave a region for a later one. */
static void check_jumps(Cpu *C, Split *S, const Stmt *st)
{
    if (st->kind == ST_RETURN || st->kind == ST_GOTO) {
        error(C, st->range.begin, "on CPUs the @barrier at line %u splits this @inner loop; "
              "a '%s' inside it is not supported: use an if around the rest",
              S->barrier_line, st->kind == ST_RETURN ? "return" : "goto");
        return;
    }
    if (st->kind == ST_CONTINUE || st->kind == ST_BREAK) {
        for (const Stmt *p = st->parent; p; p = p->parent) {
            bool loop = p->kind == ST_FOR || p->kind == ST_WHILE || p->kind == ST_DO;
            if (!loop && !(p->kind == ST_SWITCH && st->kind == ST_BREAK))
                continue;
            if (p->has_barrier)
                error(C, st->range.begin, "on CPUs the @barrier at line %u splits the loop "
                      "this '%s' leaves; it is not supported there: use an if around the rest",
                      S->barrier_line, st->kind == ST_BREAK ? "break" : "continue");
            break;
        }
        return;
    }
    for (size_t i = 0; i < st->nkids; i++)
        check_jumps(C, S, st->kids[i]);
}

/* The locals of a split nest that live in more than one region get one
 * slot per thread: their declaration moves to the front, the uses index
 * it. Returns the declarations. */
static const char *promote(Cpu *C, Split *S)
{
    Buf decls;
    oklc_buf_init(&decls, C->a);
    for (size_t i = 0; i < C->k->nlocals; i++) {
        Var *v = C->k->locals[i];
        int home = region_of(S, v->name_off);
        if (home < 0 || exclusive_of(v))
            continue;            /* outside the nest, or in a moved head */
        bool crosses = false;
        for (size_t r = 0; r < v->nrefs && !crosses; r++)
            crosses = region_of(S, v->refs[r].begin) != home;
        if (!crosses)
            continue;
        if (v->type.reference) {
            error(C, v->name_off, "on CPUs the @barrier at line %u splits this @inner loop, "
                  "and reference '%s' is used on both sides of it; use a pointer",
                  S->barrier_line, v->name);
            continue;
        }
        const Loop *by_axis[3];
        threads_at(C, S->b, v->name_off, by_axis);
        const char *s = slot(C, S->b, by_axis);
        oklc_buf_printf(&decls, "%s%s;", decls.len ? " " : "",
                        declaration(C, v, oklc_arena_printf(C->a, "%s[%s]", v->name,
                                                           slot_count(C, S->b))));
        for (size_t r = 0; r < v->nrefs; r++)
            oklc_edit_after(&C->E->ed, v->refs[r].end, oklc_arena_printf(C->a, "[%s]", s));
        /* the declaration becomes an assignment (or nothing) */
        const Stmt *ds = v->decl_stmt;
        if (ds && ds->ndecls == 1) {
            oklc_edit_replace(&C->E->ed, ds->range.begin, ds->range.end,
                              v->init_form ? init_slot(C, v, s) : "");
        } else if (ds) {
            error(C, v->name_off, "on CPUs the @barrier at line %u splits this @inner loop, "
                  "and '%s' is used on both sides of it: declare it in a declaration of its "
                  "own", S->barrier_line, v->name);
        }
    }
    return decls.data ? decls.data : "";
}

static bool blank(const char *s)
{
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (isspace((unsigned char)*s)) {
            s++;
        } else {
            return false;
        }
    }
    return true;
}

static void emit_plan(Cpu *C, const PlanList *list, const char *ind, Buf *b);

static void emit_region(Cpu *C, const Plan *p, const char *ind, Buf *b)
{
    const char *code = render(C, p->text);
    if (blank(code)) {
        size_t n = strlen(code);
        while (n && isspace((unsigned char)code[n - 1]))
            n--;
        oklc_buf_putn(b, code, n);      /* comments stay */
        return;
    }
    oklc_buf_printf(b, "\n%s", ind);
    for (size_t i = 0; i < p->nlevels; i++) {
        if (i)
            oklc_buf_putc(b, ' ');
        open_level(C, p->levels[i], b);
    }
    size_t n = strlen(code);
    while (n && isspace((unsigned char)code[n - 1]))
        n--;
    oklc_buf_putn(b, code, n);
    oklc_buf_printf(b, "\n%s", ind);
    for (size_t i = 0; i < p->nlevels; i++)
        oklc_buf_puts(b, i ? " }" : "}");
}

static void emit_moved(Cpu *C, const Plan *p, const char *ind, Buf *b)
{
    const char *head = render(C, p->st->head);
    const char *inner = oklc_arena_printf(C->a, "%s  ", ind);
    switch (p->kind) {
    case PLAN_FOR: oklc_buf_printf(b, "\n%sfor (%s) {", ind, head); break;
    case PLAN_WHILE: oklc_buf_printf(b, "\n%swhile (%s) {", ind, head); break;
    case PLAN_DO: oklc_buf_printf(b, "\n%sdo {", ind); break;
    default: oklc_buf_printf(b, "\n%sif (%s) {", ind, head); break;
    }
    emit_plan(C, &p->body, inner, b);
    oklc_buf_printf(b, "\n%s}", ind);
    if (p->kind == PLAN_DO)
        oklc_buf_printf(b, " while (%s);", head);
    if (p->kind == PLAN_IF && p->st->nkids > 1) {
        oklc_buf_puts(b, " else {");
        emit_plan(C, &p->orelse, inner, b);
        oklc_buf_printf(b, "\n%s}", ind);
    }
}

static void emit_plan(Cpu *C, const PlanList *list, const char *ind, Buf *b)
{
    for (size_t i = 0; i < list->len; i++) {
        const Plan *p = list->data[i];
        if (p->kind == PLAN_REGION)
            emit_region(C, p, ind, b);
        else
            emit_moved(C, p, ind, b);
    }
}

/* A top @inner loop with a barrier inside: rebuilt as its regions. */
static void split(Cpu *C, Block *blk, const Loop *top)
{
    Split S = {0};
    S.b = blk;
    S.top = top;
    S.stmt = top->node;
    for (size_t i = 0; i < C->k->nbarriers; i++)
        if (contains(S.stmt->range, C->k->barriers[i]->stmt.begin)) {
            S.barrier_line = oklc_model_line(C->E->c, C->k->barriers[i]->stmt.begin);
            break;
        }
    /* the statement may hold a loop over tiles (@outer) and its @inner loop */
    const Loop *tiles = top->tile_part == 2 && top->tile_other->kind != LOOP_INNER
                            ? top->tile_other : NULL;
    const Loop **lv;
    size_t nlv = inner_levels(C, S.stmt, NULL, 0, &lv);
    PlanList plan = {0};
    plan_body(C, &S, S.stmt->kids[S.stmt->nkids - 1], lv, nlv, &plan);
    if (C->ok)
        check_jumps(C, &S, S.stmt->kids[S.stmt->nkids - 1]);
    if (!C->ok)
        return;
    need_extents(blk, top->stmt.begin);
    const char *decls = promote(C, &S);
    const char *ind = oklc_emit_indent(C->E, S.stmt->range.begin);
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    Buf b;
    oklc_buf_init(&b, C->a);
    if (tiles)
        oklc_buf_printf(&b, "%s { %s", tile_head(C, tiles), tile_end_decl(C, top));
    oklc_buf_printf(&b, "{ /* split at @barrier: each part runs for every @inner iteration */");
    if (*decls)
        oklc_buf_printf(&b, "\n%s%s", in, decls);
    emit_plan(C, &plan, in, &b);
    oklc_buf_printf(&b, "\n%s}", ind);
    if (tiles)
        oklc_buf_puts(&b, " }");
    oklc_edit_replace(&C->E->ed, S.stmt->range.begin, S.stmt->range.end, b.data);
}

/* ---- barriers that need nothing, returns --------------------------------------------- */

static const Stmt *barrier_stmt(const Stmt *st, const Barrier *br)
{
    if (st->kind == ST_NULL && st->barrier == br)
        return st;
    for (size_t i = 0; i < st->nkids; i++) {
        const Stmt *f = barrier_stmt(st->kids[i], br);
        if (f)
            return f;
    }
    return NULL;
}

static bool in_split(Cpu *C, uint32_t off)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (is_top_inner(l) && l->node && l->node->has_barrier && contains(l->stmt, off))
            return true;
    }
    return false;
}

/* Between @inner loops a barrier is already satisfied: each loop ends
 * before the next starts. */
static void drop_barriers(Cpu *C)
{
    for (size_t i = 0; i < C->k->nbarriers; i++) {
        const Barrier *br = C->k->barriers[i];
        if (in_split(C, br->stmt.begin))
            continue;
        const Stmt *st = C->k->root ? barrier_stmt(C->k->root, br) : NULL;
        const SpecRange *spec = oklc_emit_spec_of(C->E, br->attr);
        if (st && st->parent && st->parent->kind == ST_COMPOUND && spec)
            oklc_emit_delete_stmt(C->E, spec->off, br->stmt.end);
    }
}

static const Loop *innermost_at(Cpu *C, uint32_t off)
{
    const Loop *best = NULL;
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (contains(l->stmt, off) && l->kind != LOOP_REGULAR && (!best || l->level > best->level))
            best = l;
    }
    return best;
}

/* The label at the end of the loop's body (one per loop). */
static const char *label_at_end(Cpu *C, const Loop *l, const Stmt *body)
{
    for (size_t i = 0; i < C->labelled.len; i++)
        if (C->labelled.data[i] == l)
            return C->labels.data[i];
    const char *name = oklc_arena_printf(C->a, "_occa_next_%s", l->iter);
    for (int n = 2;; n++) {
        bool taken = false;
        for (size_t i = 0; i < C->labels.len; i++)
            taken |= !strcmp(C->labels.data[i], name);
        if (!taken)
            break;
        name = oklc_arena_printf(C->a, "_occa_next_%s_%d", l->iter, n);
    }
    vec_push(C->a, &C->labelled, l);
    vec_push(C->a, &C->labels, name);
    oklc_edit_before(&C->E->ed, body->range.end - 1,
                     oklc_arena_printf(C->a, "%s:;\n%s", name,
                                       oklc_emit_indent(C->E, body->range.end - 1)));
    return name;
}

/* `return` in an @outer or @inner loop ends that iteration (a thread or
 * a block returns), not the kernel: a continue, or a jump to the end of
 * the iteration from inside a nested loop or switch. */
static void returns(Cpu *C, const Stmt *st)
{
    for (size_t i = 0; i < st->nkids; i++)
        returns(C, st->kids[i]);
    if (st->kind != ST_RETURN)
        return;
    const Loop *l = innermost_at(C, st->range.begin);
    if (!l || in_split(C, st->range.begin))
        return;
    const Stmt *p = st->parent;
    while (p && p->kind != ST_FOR && p->kind != ST_WHILE && p->kind != ST_DO &&
           p->kind != ST_SWITCH)
        p = p->parent;
    uint32_t keyword = st->range.begin + 6;      /* "return" */
    if (p && p->kind == ST_FOR && p->loop == l) {
        oklc_edit_replace(&C->E->ed, st->range.begin, keyword, "continue");
        return;
    }
    const Stmt *body = l->node && l->node->nkids ? l->node->kids[l->node->nkids - 1] : NULL;
    if (!body || body->kind != ST_COMPOUND) {
        error(C, st->range.begin, "on CPUs this 'return' ends the iteration of the loop at "
              "line %u with a jump to the end of its body; put that body in braces",
              oklc_model_line(C->E->c, l->stmt.begin));
        return;
    }
    oklc_edit_replace(&C->E->ed, st->range.begin, keyword,
                      oklc_arena_printf(C->a, "goto %s", label_at_end(C, l, body)));
}

/* ---- OpenMP ----------------------------------------------------------------------------- */

/* Is `inner` the whole body of `outer`, with bounds that do not depend
 * on it (a rectangular nest OpenMP can collapse)? */
static bool collapsible(Cpu *C, const Loop *outer, const Loop *inner)
{
    if (!outer->node || !inner->node || outer->tile_part || inner->tile_part)
        return false;
    const Stmt *body = outer->node->kids[outer->node->nkids - 1];
    if (body->kind == ST_COMPOUND && body->nkids == 1)
        body = body->kids[0];
    if (body != inner->node)
        return false;
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off != outer->iter_off)
            continue;
        for (size_t r = 0; r < v->nrefs; r++)
            if (contains(inner->header, v->refs[r].begin))
                return false;
    }
    return true;
}

/* A pragma line before a statement (before its attributes, if it
 * starts its line). */
static void pragma_before(Cpu *C, Attr *const *attrs, size_t nattrs, uint32_t stmt,
                          const char *pragma)
{
    uint32_t start = stmt;
    for (size_t i = 0; i < nattrs; i++) {
        const SpecRange *sp = oklc_emit_spec_of(C->E, attrs[i]);
        if (sp && sp->off < start)
            start = sp->off;
    }
    const char *t = C->E->nz->text;
    uint32_t ls = start;
    while (ls > 0 && (t[ls - 1] == ' ' || t[ls - 1] == '\t'))
        ls--;
    const char *ind = oklc_emit_indent(C->E, start);
    if (ls == 0 || t[ls - 1] == '\n')
        oklc_edit_before(&C->E->ed, start, oklc_arena_printf(C->a, "%s\n%s", pragma, ind));
    else
        oklc_edit_before(&C->E->ed, stmt, oklc_arena_printf(C->a, "\n%s%s\n%s", ind, pragma, ind));
}

/* OpenMP's loop form wants `T i = start`: T i{start} and T i(start) are
 * rewritten. */
static void canonical_init(Cpu *C, const Loop *l)
{
    const char *t = C->E->nz->text;
    uint32_t p = l->iter_off + (uint32_t)strlen(l->iter);
    while (p < l->init.end && isspace((unsigned char)t[p]))
        p++;
    if (l->tile_part || p >= l->init.end || t[p] == '=')
        return;
    oklc_edit_replace(&C->E->ed, l->init.begin, l->init.end,
                      oklc_arena_printf(C->a, "%s %s = %s", iter_type(C, l), l->iter, l->start));
}

/* Does loop l's header use the iterator of loop `of`? */
static bool header_uses(Cpu *C, const Loop *l, const Loop *of)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off != of->iter_off)
            continue;
        for (size_t r = 0; r < v->nrefs; r++)
            if (contains(l->header, v->refs[r].begin))
                return true;
    }
    return false;
}

static void parallel_loops(Cpu *C, const Loop *l, const Loop *const *order, size_t norder)
{
    {
        int n = 1;
        if (norder && order[0] == l) {
            /* a reordered nest: collapse the first two when rectangular */
            if (norder > 1 && !header_uses(C, order[1], order[0]))
                n = 2;
        } else {
            const Loop *cur = l;
            canonical_init(C, l);
            while (cur->nkids == 1 && cur->kids[0]->kind == LOOP_OUTER &&
                   collapsible(C, cur, cur->kids[0])) {
                cur = cur->kids[0], n++;
                canonical_init(C, cur);
            }
        }
        const char *collapse = n > 1 ? oklc_arena_printf(C->a, " collapse(%d)", n) : "";
        pragma_before(C, l->attrs, l->nattrs, l->stmt.begin,
                      oklc_arena_printf(C->a, "#pragma omp parallel for%s", collapse));
    }
}

/* ---- loop order ------------------------------------------------------------------------------ */

/* A perfect nest (each loop's body is the next loop; no @shared,
 * @exclusive or barrier in it) whose iterations are all independent runs
 * on a CPU in any order. GPU code tiles its index space:
 * `by, bx (@outer), ty, tx (@inner)`; walked in that order, a CPU jumps
 * between rows every few elements. Ordered by axis instead, slowest
 * first (by, ty, bx, tx), it walks memory the way the data lies. The
 * innermost loop stays innermost, and every loop's bounds may only use the
 * loops before it. */
static int by_axis_order(const void *pa, const void *pb)
{
    const Loop *a = *(const Loop *const *)pa, *b = *(const Loop *const *)pb;
    if (a->axis != b->axis)
        return a->axis > b->axis ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind == LOOP_OUTER ? -1 : 1;
    return a->level < b->level ? -1 : a->level > b->level;
}

static size_t perfect_nest(const Loop *top, const Loop **chain, size_t max)
{
    size_t n = 0;
    for (const Loop *l = top;; l = l->kids[0]) {
        if (n == max || l->tile_part || !l->analyzed || !l->node || !l->node->nkids)
            return 0;
        chain[n++] = l;
        const Stmt *body = l->node->kids[l->node->nkids - 1];
        if (!l->nkids)
            return body->has_barrier ? 0 : n;
        if (body->kind == ST_COMPOUND && body->nkids == 1)
            body = body->kids[0];
        if (l->nkids != 1 || body != l->kids[0]->node)
            return 0;
    }
}

/* Returns the new order's length (0: the nest stays as it is). */
static size_t reorder_nest(Cpu *C, const Loop *top, const Loop **order)
{
    enum { MAX = 6 };
    const Loop *chain[MAX];
    size_t n = perfect_nest(top, chain, MAX);
    if (n < 3)
        return 0;
    memcpy(order, chain, n * sizeof *order);
    qsort(order, n, sizeof *order, by_axis_order);
    if (order[n - 1] != chain[n - 1] || !memcmp(order, chain, n * sizeof *order))
        return 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (header_uses(C, order[i], order[j]))
                return 0;                    /* a bound needs a loop that would come later */
    const char *ind = oklc_emit_indent(C->E, top->stmt.begin);
    Buf b;
    oklc_buf_init(&b, C->a);
    for (size_t i = 0; i < n; i++) {
        const Loop *l = order[i];
        const char *head = l == chain[n - 1]
            ? render(C, l->header)             /* it may have new bounds */
            : oklc_arena_printf(C->a, "(%s %s = %s; %s %s %s; %s)", iter_type(C, l), l->iter,
                                l->start, l->iter, oklc_cmp_spelling(l->cmp), l->bound,
                                render(C, l->step));
        oklc_buf_printf(&b, "%s%*sfor %s%s", i ? "\n" : "", i ? (int)(strlen(ind) + 2 * i) : 0,
                        i ? "" : "", head, i + 1 < n ? " {" : " ");
    }
    const Stmt *body = chain[n - 1]->node->kids[chain[n - 1]->node->nkids - 1];
    oklc_buf_puts(&b, render(C, body->range));
    for (size_t i = n - 1; i-- > 0;)
        oklc_buf_printf(&b, "\n%s%*s}", ind, (int)(2 * i), "");
    oklc_edit_replace(&C->E->ed, top->stmt.begin, top->stmt.end, b.data);
    return n;
}

/* Memory one block owns: declared inside the @outer loops, not reached
 * through a pointer. */
static bool block_private(const Var *v)
{
    return v && v->kind == VAR_LOCAL && v->loop && !(v->type.pointer && !v->type.array);
}

static void atomics(Cpu *C)
{
    for (size_t i = 0; i < C->k->natomics; i++) {
        const Atomic *at = C->k->atomics[i];
        if (!at->block && block_private(at->target) &&
            (at->op != AT_ASSIGN || block_private(at->source)))
            continue;             /* one thread owns it: nothing to do */
        const char *form;
        if (at->block || !at->scalar)
            form = "critical";
        else if (at->op == AT_ASSIGN && block_private(at->target))
            form = at->rhs_lvalue ? "atomic read" : "critical";
        else if (at->op == AT_ASSIGN)
            form = "atomic write";
        else if (at->op == AT_OTHER || at->op == AT_MOD)
            form = "critical";
        else
            form = "atomic update";
        Attr *a = at->attr;
        pragma_before(C, &a, 1, at->stmt.begin, oklc_arena_printf(C->a, "#pragma omp %s", form));
    }
}

/* ---- guards as loop bounds ------------------------------------------------------------------ */

/* `for (t = 0; t < 256; ++t) if (t < alive) S` walks 256 iterations to do
 * `alive` of them, and the branch keeps the compiler from vectorising S:
 * the guard's terms become the loop's bounds,
 * `for (t = 0; t < (256 < alive ? 256 : alive); ++t) S`. The usual forms
 * of OKL guards qualify: the iterator, or a local `const int n = base + t`
 * declared before the if, compared with an expression the loop cannot
 * change (no call, subscript, dereference or side effect; variables from
 * outside the loop that it never writes, or locals declared from those);
 * a term that does not involve the iterator at all makes the loop empty
 * when false. The statements before the if may only declare (they would
 * otherwise be skipped for the iterations the bounds remove). */

typedef struct Local {
    const Var  *v;
    const char *value;         /* its initializer, in parentheses */
    bool        affine;        /* value = iterator + offset */
    const char *offset;        /* NULL: the iterator itself */
} Local;

typedef struct Guard {
    const Loop *l;
    Local      *locals;        /* the declarations before the if */
    size_t      nlocals;
    const char *lo, *hi;       /* max of the lower bounds, min of the upper (exclusive) */
    const char *when;          /* terms without the iterator, joined by && */
} Guard;

static bool ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

static uint32_t skip_blanks(const char *t, uint32_t p, uint32_t end)
{
    while (p < end && isspace((unsigned char)t[p]))
        p++;
    return p;
}

static Range trimmed(const char *t, uint32_t b, uint32_t e)
{
    b = skip_blanks(t, b, e);
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    return (Range){b, e};
}

static bool text_is(const char *t, Range r, const char *s)
{
    return strlen(s) == r.end - r.begin && !strncmp(t + r.begin, s, r.end - r.begin);
}

/* Is the operator at t[p] unary: nothing that ends an operand before it? */
static bool unary(const char *t, uint32_t from, uint32_t p)
{
    while (p > from && isspace((unsigned char)t[p - 1]))
        p--;
    return p == from || strchr("(+-*/%<>&|^!~,=?:[{;", t[p - 1]);
}

/* Does the loop write v (or take its address) anywhere in range r? */
static bool written_in(Cpu *C, const Var *v, Range r)
{
    const char *t = C->E->nz->text;
    static const char *const writes[] = {"++", "--", "+=", "-=", "*=", "/=", "%=",
                                         "&=", "|=", "^=", "<<=", ">>="};
    for (size_t i = 0; i < v->nrefs; i++) {
        Range ref = v->refs[i];
        if (!contains(r, ref.begin))
            continue;
        uint32_t a = skip_blanks(t, ref.end, (uint32_t)C->E->nz->len);
        if (t[a] == '=' && t[a + 1] != '=')
            return true;
        for (size_t w = 0; w < OKLC_COUNTOF(writes); w++)
            if (!strncmp(t + a, writes[w], strlen(writes[w])))
                return true;
        uint32_t b = ref.begin;
        while (b > 0 && isspace((unsigned char)t[b - 1]))
            b--;
        if (b >= 2 && (!strncmp(t + b - 2, "++", 2) || !strncmp(t + b - 2, "--", 2)))
            return true;
        if (b >= 1 && t[b - 1] == '&' && (b < 2 || t[b - 2] != '&') && unary(t, 0, b - 1))
            return true;                        /* its address is taken (not a && v) */
    }
    return false;
}

/* Has [b, e) no side effect and no call (subscripts are allowed when
 * `reads`)? */
static bool pure(const char *t, uint32_t b, uint32_t e, bool reads)
{
    for (uint32_t p = b; p < e; p++) {
        char ch = t[p], nx = t[p + 1];
        if ((ch == '[' && !reads) || ch == '{' || (ch == '-' && nx == '>' && !reads) ||
            (ch == '+' && nx == '+') || (ch == '-' && nx == '-'))
            return false;
        if (ch == '=' && nx != '=' && (p == b || !strchr("<>!=", t[p - 1])))
            return false;                       /* an assignment */
        if (ch == '(' && p > b) {
            uint32_t q = p;
            while (q > b && isspace((unsigned char)t[q - 1]))
                q--;
            if (q > b && ident(t[q - 1]))
                return false;                   /* a call */
        }
        if (ch == '&' && nx == '&')
            p++;                                /* a && b */
        else if ((ch == '*' || ch == '&') && unary(t, b, p) && !reads)
            return false;                       /* a dereference, an address */
    }
    return true;
}

static const Local *local_at(const Guard *g, uint32_t off)
{
    for (size_t i = 0; i < g->nlocals; i++)
        for (size_t r = 0; r < g->locals[i].v->nrefs; r++)
            if (g->locals[i].v->refs[r].begin == off)
                return &g->locals[i];
    return NULL;
}

/* [b, e) as an expression the loop cannot change, with the locals of the
 * guard replaced by their values; NULL if it is not one. */
static const char *invariant(Cpu *C, const Guard *g, uint32_t b, uint32_t e)
{
    const char *t = C->E->nz->text;
    const Loop *l = g->l;
    if (b >= e || !pure(t, b, e, false))
        return NULL;
    Buf out;
    oklc_buf_init(&out, C->a);
    uint32_t pos = b;
    for (;;) {
        uint32_t next = e;
        const Var *v = NULL;
        for (size_t i = 0; i < C->k->nparams + C->k->nlocals; i++) {
            const Var *w = i < C->k->nparams ? C->k->params[i] : C->k->locals[i - C->k->nparams];
            for (size_t r = 0; r < w->nrefs; r++)
                if (w->refs[r].begin >= pos && w->refs[r].begin < next)
                    next = w->refs[r].begin, v = w;
        }
        oklc_buf_putn(&out, t + pos, next - pos);
        if (!v)
            break;
        const Local *lc = local_at(g, next);
        if (lc && lc->value) {
            oklc_buf_puts(&out, lc->value);     /* a value the loop cannot change */
        } else if (exclusive_of(v) || contains(l->stmt, v->name_off) ||
                   written_in(C, v, l->stmt)) {
            return NULL;                        /* per thread, or changed by the loop */
        } else {
            oklc_buf_puts(&out, v->name);
        }
        pos = next + (uint32_t)strlen(v->name);
    }
    return out.data ? out.data : "";
}

/* An integer literal's value. */
static bool literal(const char *s, long long *v)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return false;
    *v = strtoll(s, &end, 10);
    return !*end;
}

/* x + 1, folded when x is a number. */
static const char *plus_one(Cpu *C, const char *x)
{
    long long v;
    return literal(x, &v) ? oklc_arena_printf(C->a, "%lld", v + 1)
                          : oklc_arena_printf(C->a, "%s + 1", x);
}

/* *b = min(*b, v) for an upper bound, max(*b, v) for a lower one. */
static void tighten(Cpu *C, const char **b, const char *v, bool upper)
{
    long long x, y;
    if (*b && literal(*b, &x) && literal(v, &y))
        *b = (upper ? y < x : y > x) ? v : *b;
    else
        *b = !*b ? v
             : oklc_arena_printf(C->a, upper ? "(%s < %s ? %s : %s)" : "(%s > %s ? %s : %s)",
                                 op(C, *b), op(C, v), op(C, *b), op(C, v));
}

/* A side of a comparison that is the iterator plus an offset: "t", or a
 * local declared as base + t. */
static bool on_iterator(Cpu *C, const Guard *g, Range side, const char **offset)
{
    const char *t = C->E->nz->text;
    *offset = NULL;
    if (text_is(t, side, g->l->iter))
        return true;
    const Local *lc = local_at(g, side.begin);
    if (!lc || !lc->affine || !text_is(t, side, lc->v->name))
        return false;
    *offset = lc->offset;
    return true;
}

/* One term of the guard: "t < X", "X >= n", "t == X" as bounds, or a
 * condition without the iterator. */
static bool bound_term(Cpu *C, Guard *g, uint32_t b, uint32_t e)
{
    const char *t = C->E->nz->text;
    int depth = 0;
    uint32_t at = 0, len = 0, n = 0;
    for (uint32_t p = b; p < e; p++) {
        if (t[p] == '(')
            depth++;
        else if (t[p] == ')')
            depth--;
        else if (!depth && (t[p] == '<' || t[p] == '>')) {
            if (t[p + 1] == t[p])
                return false;                   /* a shift */
            at = p, len = t[p + 1] == '=' ? 2 : 1, n++;
            p += len - 1;
        } else if (!depth && t[p] == '=' && t[p + 1] == '=') {
            at = p, len = 2, n++;
            p++;
        } else if (!depth && t[p] == '!' && t[p + 1] == '=') {
            at = p, len = 2, n++;
            p++;
        }
    }
    Range all = trimmed(t, b, e);
    const char *whole = invariant(C, g, all.begin, all.end);
    if (whole) {                                /* no iterator: the loop runs or not */
        g->when = g->when ? oklc_arena_printf(C->a, "%s && %s", g->when, op(C, whole))
                          : op(C, whole);
        return true;
    }
    if (n != 1 || t[at] == '!')
        return false;
    Range left = trimmed(t, b, at), right = trimmed(t, at + len, e);
    const char *offset;
    bool iter_left = on_iterator(C, g, left, &offset);
    if (!iter_left && !on_iterator(C, g, right, &offset))
        return false;
    Range xr = iter_left ? right : left;
    const char *x = invariant(C, g, xr.begin, xr.end);
    if (!x)
        return false;
    x = op(C, x);
    if (offset)                                 /* base + t CMP X: t CMP X - base */
        x = !strcmp(x, "0") ? oklc_arena_printf(C->a, "-%s", op(C, offset))
                            : oklc_arena_printf(C->a, "(%s - %s)", x, op(C, offset));
    const char *x1 = plus_one(C, x);
    if (t[at] == '=') {                         /* t == X: [X, X + 1) */
        tighten(C, &g->lo, x, false);
        tighten(C, &g->hi, x1, true);
        return true;
    }
    bool less = t[at] == '<', eq = len == 2;
    if (less == iter_left)                      /* t < X, X > t */
        tighten(C, &g->hi, eq ? x1 : x, true);
    else
        tighten(C, &g->lo, eq ? x : x1, false);
    return true;
}

/* A local declared before the if: its value, and whether it is the
 * iterator plus something the loop cannot change. */
static Local local_of(Cpu *C, Guard *g, const Var *v)
{
    const char *t = C->E->nz->text;
    Local lc = {v, NULL, false, NULL};
    if (v->init_form != '=' || written_in(C, v, g->l->stmt))
        return lc;
    Range init = trimmed(t, v->init.begin, v->init.end);
    if (text_is(t, init, g->l->iter)) {
        lc.affine = true;
        return lc;
    }
    int depth = 0;
    for (uint32_t p = init.begin; p < init.end; p++) {
        depth += t[p] == '(' ? 1 : t[p] == ')' ? -1 : 0;
        if (depth || t[p] != '+' || unary(t, init.begin, p))
            continue;
        Range a = trimmed(t, init.begin, p), b = trimmed(t, p + 1, init.end);
        Range other = text_is(t, a, g->l->iter) ? b : text_is(t, b, g->l->iter) ? a : (Range){0, 0};
        const char *off = other.end ? invariant(C, g, other.begin, other.end) : NULL;
        if (off) {
            lc.affine = true;
            lc.offset = off;
            return lc;
        }
    }
    const char *value = invariant(C, g, init.begin, init.end);
    lc.value = value ? oklc_arena_printf(C->a, "(%s)", value) : NULL;
    return lc;
}

/* The loop's body: declarations without side effects, then an if without
 * else. Collects the declarations. */
static const Stmt *guard_of(Cpu *C, Guard *g)
{
    const Loop *l = g->l;
    if (!l->node || !l->node->nkids)
        return NULL;
    const Stmt *body = l->node->kids[l->node->nkids - 1];
    const Stmt *const *kids = &body;
    size_t n = 1;
    if (body->kind == ST_COMPOUND)
        kids = (const Stmt *const *)body->kids, n = body->nkids;
    if (!n || kids[n - 1]->kind != ST_IF || kids[n - 1]->nkids != 1)
        return NULL;
    size_t nvars = 0;
    for (size_t i = 0; i + 1 < n; i++)
        nvars += kids[i]->ndecls;
    g->locals = oklc_arena_alloc(C->a, (nvars + 1) * sizeof *g->locals);
    for (size_t i = 0; i + 1 < n; i++) {
        const Stmt *d = kids[i];
        if (d->kind != ST_DECL || !d->ndecls)
            return NULL;
        for (size_t k = 0; k < d->ndecls; k++) {
            const Var *v = d->decls[k];
            if (v->init_form && !pure(C->E->nz->text, v->init.begin, v->init.end, true))
                return NULL;
            Local lc = local_of(C, g, v);    /* sees the locals before it only */
            g->locals[g->nlocals++] = lc;
        }
    }
    return kids[n - 1];
}

static void guard_bounds(Cpu *C, const Loop *l)
{
    if (l->kind != LOOP_INNER || l->nkids || l->tile_part || l->down || !l->analyzed ||
        strcmp(l->stride, "1") || (l->cmp != CMP_LT && l->cmp != CMP_LE) ||
        in_split(C, l->stmt.begin))
        return;
    Guard g = {l, NULL, 0, NULL, NULL, NULL};
    const Stmt *st = guard_of(C, &g);
    if (!st)
        return;
    const char *t = C->E->nz->text;
    bool all = true;
    int depth = 0;
    uint32_t from = st->head.begin;
    for (uint32_t p = st->head.begin; p <= st->head.end; p++) {
        bool end = p == st->head.end;
        if (!end && t[p] == '(')
            depth++;
        else if (!end && t[p] == ')')
            depth--;
        if (end || (!depth && t[p] == '&' && t[p + 1] == '&')) {
            all &= bound_term(C, &g, from, p);
            from = p + 2;
            p++;
        } else if (!depth && t[p] == '|' && t[p + 1] == '|') {
            return;                              /* a disjunction: no bound */
        }
    }
    if (!g.lo && !g.hi && (!g.when || !all))
        return;
    const char *start = op(C, l->start), *end = op(C, l->bound);
    if (l->cmp == CMP_LE)
        end = plus_one(C, end);
    if (g.lo)
        tighten(C, &start, g.lo, false);
    if (g.hi)
        tighten(C, &end, g.hi, true);
    if (g.when)      /* false: no iteration */
        end = oklc_arena_printf(C->a, "(%s ? %s : %s)", g.when, op(C, end), op(C, start));
    long long v;
    const char *head = literal(end, &v)
        ? oklc_arena_printf(C->a, "(%s %s = %s; %s < %s; %s)", iter_type(C, l), l->iter, start,
                            l->iter, end, render(C, l->step))
        : oklc_arena_printf(C->a, "(%s _occa_end_%s = %s, %s = %s; %s < _occa_end_%s; %s)",
                            iter_type(C, l), l->iter, end, l->iter, start, l->iter, l->iter,
                            render(C, l->step));
    oklc_edit_replace(&C->E->ed, l->header.begin, l->header.end, head);
    if (all)     /* the bounds say it all: "if (...)" goes */
        oklc_emit_delete_stmt(C->E, st->range.begin, st->head.end + 1);
}

/* ---- unrolling ----------------------------------------------------------------------------- */

/* GCC's spelling of an unroll hint, which Clang reads too: "unroll 4" ->
 * "GCC unroll 4"; a bare "unroll" (unroll fully) asks for the most. */
static const char *gcc_unroll(Cpu *C, const char *count)
{
    return oklc_arena_printf(C->a, "#pragma GCC unroll %s", count && *count ? count : "65534");
}

/* @unroll(n) on a loop. */
static void unroll_attrs(Cpu *C)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->unroll && l->tile_part != 2)
            pragma_before(C, l->attrs, l->nattrs, l->stmt.begin,
                          gcc_unroll(C, l->unroll->nargs ? l->unroll->args[0].text : NULL));
    }
}

/* `#pragma unroll n` lines (CUDA's, which GCC ignores), anywhere in the
 * file. */
static void unroll_pragmas(Cpu *C)
{
    const char *t = C->E->nz->text;
    for (const char *line = t; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *p = line;
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        const char *hash = p;
        if (*p == '#') {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
        }
        if (p > hash && !strncmp(p, "pragma", 6) && (p[6] == ' ' || p[6] == '\t')) {
            p += 6;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!strncmp(p, "unroll", 6) && !isalnum((unsigned char)p[6]) && p[6] != '_') {
                const char *a = p + 6;
                while (a < eol && (*a == ' ' || *a == '\t'))
                    a++;
                oklc_edit_replace(&C->E->ed, (uint32_t)(hash - t), (uint32_t)(eol - t),
                                  gcc_unroll(C, oklc_arena_strndup(C->a, a, (size_t)(eol - a))));
            }
        }
        line = *eol ? eol + 1 : eol;
    }
}

/* ---- the kernel ----------------------------------------------------------------------------- */

static void kernel(Emit *E, Kernel *k, bool omp)
{
    Cpu C = {E, k, &E->c->arena, true, {0}, {0}, {0}};
    find_blocks(&C);
    /* uses first, then what is built from their text */
    for (size_t i = 0; i < k->nlocals; i++)
        if (exclusive_of(k->locals[i]))
            exclusive_var(&C, k->locals[i]);
    if (k->root)
        returns(&C, k->root);
    if (omp)
        atomics(&C);
    oklc_emit_dims(E, k);
    tile_loops(&C);
    drop_barriers(&C);
    for (size_t i = 0; i < C.blocks.len && C.ok; i++) {
        Block *b = C.blocks.data[i];
        for (size_t j = 0; j < b->tops.len && C.ok; j++) {
            const Loop *t = b->tops.data[j];
            if (t->node && t->node->has_barrier)
                split(&C, b, t);
        }
    }
    for (size_t i = 0; i < C.blocks.len; i++)
        declare_extents(&C, C.blocks.data[i]);
    unroll_attrs(&C);
    for (size_t i = 0; i < k->nloops; i++)
        guard_bounds(&C, k->loops[i]);
    /* the nest of each top-level @outer loop: reordered, then parallel */
    for (size_t i = 0; i < k->nouters; i++) {
        const Loop *order[6];
        size_t n = reorder_nest(&C, k->outers[i], order);
        if (omp)
            parallel_loops(&C, k->outers[i], order, n);
    }
}

/* Entry points: extern "C" void _occa_entry_K(void *const *args), where
 * args[i] points to the value of argument i (a pointer's value for
 * memory). _occa_call, in the CPU prelude, unpacks them. The kernel's type
 * is spelled out: another function may have its name (a kernel "dot"). */
static void entries(Emit *E)
{
    for (size_t i = 0; i < E->kernels.len; i++) {
        KernelOut *ko = &E->kernels.data[i];
        const Kernel *k = ko->kernel;
        const char **fn = oklc_arena_alloc(&E->c->arena, sizeof *fn);
        fn[0] = ko->name;
        ko->functions = fn;
        ko->nfunctions = 1;
        oklc_buf_printf(&E->tail, "extern \"C\" void %s(void *const *args) {\n"
                        "  _occa_call(static_cast<void (*)(", ko->entry);
        for (size_t p = 0; p < k->nparams; p++)
            oklc_buf_printf(&E->tail, "%s%s", p ? ", " : "",
                            oklc_subst_targs(E->c, k, k->params[p]->type.spelling, ko->targs,
                                             ko->ntargs));
        oklc_buf_printf(&E->tail, ")>(&%s), args);\n}\n", ko->name);
    }
}

bool oklc_cpu_translate(Emit *E)
{
    int errors = E->c->nerrors;
    if (!oklc_emit_kernel_list(E))
        return false;
    oklc_emit_attributes(E);
    Cpu file = {E, NULL, &E->c->arena, true, {0}, {0}, {0}};
    unroll_pragmas(&file);
    for (size_t i = 0; i < E->m->nkernels; i++)
        kernel(E, E->m->kernels[i], E->be->openmp);
    if (E->c->nerrors > errors)
        return false;
    oklc_buf_puts(&E->tail, "\n/* Entry points: args[i] points to argument i. */\n");
    entries(E);
    return true;
}
