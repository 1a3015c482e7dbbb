/*
 * cpu_base.c - what every pass of the CPU backend asks and writes with:
 * the floor below cpu_shape.c, cpu_split.c, cpu_interchange.c,
 * cpu_fuse.c, cpu_reduce.c, cpu_counts.c and the driver cpu.c.
 *
 *   rendering  a range or a statement with the edits made so far, the
 *              input written again for a second translation (Emit.relaid)
 *   loops      a @tile's loop over tiles, a level's header, flat tiles
 *   slots      a block's threads by axis, a thread's slot, declarations
 *              with one slot per thread
 *   queries    of the kernel's text and model: is an expression pure, is
 *              a variable written, does a range use a per-thread value,
 *              an @atomic, a jump; a loop's variable, a strided loop
 *
 * Nothing here edits the output (only the second translation's text, for
 * the caller) and nothing here calls another CPU file.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

/* ---- errors, text, the second translation ------------------------------------------------ */

void oklc_cpu_error(Cpu *C, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    oklc_model_verror(C->E->c, off, fmt, ap);
    va_end(ap);
    C->ok = false;
}

void oklc_cpu_decision(Cpu *C, Range head, bool relaid, const char *what)
{
    const char *t = C->E->nz->text;
    Range h = oklc_cpu_trimmed(t, head.begin, head.end);
    const char *d = oklc_arena_printf(C->a, "kernel %s, for (%.*s): %s", C->k->name,
                                      (int)(h.end - h.begin), t + h.begin, what);
    vec_push(C->a, &C->E->decisions, d);
    if (relaid)
        vec_push(C->a, &C->E->relaid_decisions, d);
}

const char *oklc_cpu_render(Cpu *C, Range r)
{
    return oklc_edits_text(&C->E->ed, r.begin, r.end);
}

const char *oklc_cpu_render_stmt(Cpu *C, const Stmt *st)
{
    return oklc_cpu_render(C, (Range){oklc_emit_stmt_start(C->E, st->range.begin),
                                      st->range.end});
}

Hint oklc_cpu_unroll_hint(Cpu *C, const Stmt *st)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->stmt.begin == st->range.begin && l->unroll)
            return (Hint){l->stmt.begin, l->unroll->nargs ? l->unroll->args[0].text : "", l};
    }
    const char *t = C->E->nz->text;
    uint32_t end = st->range.begin, b;
    while (end > 0 && t[end - 1] != '\n')
        end--;
    do {
        if (!end--)
            return (Hint){UINT32_MAX, NULL, NULL};
        b = end;
        while (b > 0 && t[b - 1] != '\n')
            b--;
        b = oklc_cpu_skip_blanks(t, b, end);
    } while (b == end);
    const char *line = oklc_arena_strndup(C->a, t + b, end - b);
    if (strncmp(line, "#pragma", 7) || !strstr(line, "unroll"))
        return (Hint){UINT32_MAX, NULL, NULL};
    return (Hint){b, oklc_emit_unroll_count(line + 7), NULL};
}

/* An @inner level opened as OKL again (for the next translation): its
 * attribute and header as written (from ed), "[[okl::inner(1)]] for (...) {". */
const char *oklc_cpu_okl_level(Cpu *C, Edits *ed, const Loop *l)
{
    const char *head = oklc_edits_text(ed, l->header.begin, l->header.end);
    return l->axis_given ? oklc_arena_printf(C->a, "[[okl::inner(%d)]] for %s {", l->axis, head)
                         : oklc_arena_printf(C->a, "[[okl::inner]] for %s {", head);
}

/* The input written again for a second translation (E->relaid), made at
 * the first use. The barriers the analysis left out go from it: that
 * translation does not judge the user's barriers again, and would split
 * an @inner loop at one. */
Edits *oklc_cpu_relaid(Cpu *C)
{
    Emit *E = C->E;
    E->relays++;
    if (!E->relaid) {
        E->relaid = oklc_arena_alloc(C->a, sizeof *E->relaid);
        oklc_edits_init(E->relaid, C->a, E->nz->text, E->nz->len);
        for (size_t i = 0; i < E->m->nkernels; i++)
            for (size_t j = 0; j < E->m->kernels[i]->nbarriers; j++) {
                const Barrier *br = E->m->kernels[i]->barriers[j];
                const SpecRange *spec = br->dropped ? oklc_emit_spec_of(E, br->attr) : NULL;
                if (spec && br->node && br->node->parent &&
                    br->node->parent->kind == ST_COMPOUND)
                    oklc_edit_delete(E->relaid, spec->off, br->stmt.end);
                else if (spec)   /* where a statement must stand: if (c) ; */
                    oklc_edit_replace(E->relaid, spec->off, br->stmt.end, ";");
            }
    }
    return E->relaid;
}

/* ---- text -------------------------------------------------------------------------------- */

uint32_t oklc_cpu_skip_blanks(const char *t, uint32_t p, uint32_t end)
{
    while (p < end && isspace((unsigned char)t[p]))
        p++;
    return p;
}

Range oklc_cpu_trimmed(const char *t, uint32_t b, uint32_t e)
{
    b = oklc_cpu_skip_blanks(t, b, e);
    while (e > b && isspace((unsigned char)t[e - 1]))
        e--;
    return (Range){b, e};
}

bool oklc_cpu_text_is(const char *t, Range r, const char *s)
{
    return strlen(s) == r.end - r.begin && !strncmp(t + r.begin, s, r.end - r.begin);
}

/* Is the operator at t[p] unary: nothing that ends an operand before it? */
bool oklc_cpu_unary(const char *t, uint32_t from, uint32_t p)
{
    while (p > from && isspace((unsigned char)t[p - 1]))
        p--;
    return p == from || strchr("(+-*/%<>&|^!~,=?:[{;", t[p - 1]);
}

/* An integer literal's value. */
bool oklc_cpu_literal(const char *s, long long *v)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return false;
    *v = strtoll(s, &end, 10);
    return !*end;
}

uint32_t oklc_cpu_closing(const char *s, uint32_t o, uint32_t to)
{
    const char open = s[o], close = open == '[' ? ']' : ')';
    int depth = 0;
    for (uint32_t p = o; p < to; p++) {
        depth += s[p] == open ? 1 : s[p] == close ? -1 : 0;
        if (!depth)
            return p;
    }
    return to;
}

/* The subscripts that follow a use ending at `p`: their ranges, their
 * count (0 when more than `max`); *end: after the last ']'. */
size_t oklc_cpu_subscripts(Cpu *C, uint32_t p, Range *sub, size_t max, uint32_t *end)
{
    const char *t = C->E->nz->text;
    uint32_t n = (uint32_t)C->E->nz->len;
    size_t k = 0;
    for (uint32_t q = oklc_cpu_skip_blanks(t, p, n); q < n && t[q] == '[';
         q = oklc_cpu_skip_blanks(t, q, n)) {
        int depth = 0;
        uint32_t o = q;
        for (; q < n; q++) {
            depth += t[q] == '[' ? 1 : t[q] == ']' ? -1 : 0;
            if (!depth)
                break;
        }
        if (q == n || k == max)
            return 0;
        sub[k++] = (Range){o + 1, q};
        *end = ++q;
    }
    return k;
}

size_t oklc_cpu_first_at(const void *items, size_t n, size_t size, uint32_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t at;
        memcpy(&at, (const char *)items + mid * size, sizeof at);
        if (at < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- loops as CPU loops ------------------------------------------------------------------ */

static const char *tiled(Cpu *C, const Loop *l)
{
    return oklc_arena_printf(C->a, "_occa_tiled_%s", l->iter);
}

/* The loop over tiles: from start to bound in steps of size * stride. */
const char *oklc_cpu_tile_head(Cpu *C, const Loop *l)
{
    const char *tv = tiled(C, l);
    Cmp cmp = l->cmp == CMP_NE ? (l->down ? CMP_GT : CMP_LT) : l->cmp;
    return oklc_arena_printf(C->a, "for (%s %s = %s; %s %s %s; %s %s %s)", oklc_emit_iter_type(C->E, l),
                             tv, l->start, tv, oklc_cmp_spelling(cmp), l->bound, tv,
                             l->down ? "-=" : "+=", oklc_cpu_op(C, l->stride));
}

/* A level's "for (...) {" (and the tile's end, after a loop over tiles). */
void oklc_cpu_open_level(Cpu *C, const Loop *l, Buf *b)
{
    if (l->tile_part == 1)
        oklc_buf_printf(b, "%s { %s", oklc_cpu_tile_head(C, l),
                        oklc_emit_tile_end(C->E, l->tile_other));
    else if (l->tile_part == 2)
        oklc_buf_printf(b, "%s {", oklc_emit_tile_loop(C->E, l));
    else
        oklc_buf_printf(b, "for %s {", oklc_cpu_render(C, l->header));
}

/* @tile(S, @outer, @inner) without a barrier inside: on a CPU the tiles
 * are only a way to cut the loop, and the loop as written is what an
 * expert writes (no tile bookkeeping; OpenMP cuts it into one chunk per
 * thread). No @exclusive can live between its two levels. Not with
 * check=false: every tile started runs whole, past the bound, as on a GPU. */
bool oklc_cpu_flat_tile(const Loop *l)
{
    const Loop *tiles = l->tile_part == 1 ? l : l->tile_part == 2 ? l->tile_other : NULL;
    if (!tiles)
        return false;
    const Loop *in = tiles->tile_other;
    return tiles->kind == LOOP_OUTER && in->kind == LOOP_INNER && in->node &&
           !in->node->has_barrier && in->tile_check;
}

/* ---- blocks, threads and slots ----------------------------------------------------------- */

Block *oklc_cpu_block_of(Cpu *C, const Loop *outer)
{
    for (size_t i = 0; i < C->blocks.len; i++)
        if (C->blocks.data[i]->outer == outer)
            return C->blocks.data[i];
    return NULL;
}

bool oklc_cpu_in_block(const Block *b, const Loop *l)
{
    for (const Loop *p = l->parent; p; p = p->parent)
        if (p == b->outer)
            return true;
    return false;
}

bool oklc_cpu_top_inner(const Loop *l)
{
    return l->kind == LOOP_INNER && l->parent && l->parent->kind == LOOP_OUTER;
}

void oklc_cpu_need_slots(Block *b, uint32_t at)
{
    if (at < b->extents_at)
        b->extents_at = at;
}

/* The iteration's position in its loop: 0, 1, 2, ... */
static const char *position(Cpu *C, const Loop *l)
{
    const char *it = l->tile_part == 1 ? tiled(C, l) : l->iter;
    const char *from = l->tile_part == 2 ? tiled(C, l) : oklc_cpu_op(C, l->start);
    const char *stride = oklc_cpu_op(C, l->stride);
    const char *d = !strcmp(from, "0") && !l->down
                        ? it
                        : l->down ? oklc_arena_printf(C->a, "(%s - %s)", from, it)
                                  : oklc_arena_printf(C->a, "(%s - %s)", it, from);
    if (!strcmp(stride, "1"))
        return d;
    return oklc_arena_printf(C->a, "%s / %s", d, stride);
}

/* The @inner levels of the block around an offset, by axis. */
void oklc_cpu_threads_at(Cpu *C, const Block *b, uint32_t off, const Loop *by_axis[3])
{
    by_axis[0] = by_axis[1] = by_axis[2] = NULL;
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (l->kind == LOOP_INNER && oklc_in_range(l->stmt, off) && oklc_cpu_in_block(b, l) &&
            l->axis >= 0 && l->axis < 3)
            by_axis[l->axis] = l;
    }
}

/* The slot of the thread at an offset: x + X * (y + Y * z), over the
 * axes the block uses. */
const char *oklc_cpu_slot(Cpu *C, const Block *b, const Loop *by_axis[3])
{
    const char *s = NULL, *scale = NULL;
    for (int a = 0; a < 3; a++) {
        if (!b->extent[a])
            continue;
        if (by_axis[a]) {
            const char *p = position(C, by_axis[a]);
            const char *term =
                scale ? oklc_arena_printf(C->a, "%s * %s", scale, oklc_cpu_op(C, p)) : p;
            s = s ? oklc_arena_printf(C->a, "%s + %s", s, term) : term;
        }
        scale = scale ? oklc_arena_printf(C->a, "%s * %s", scale, b->extent[a]) : b->extent[a];
    }
    return s ? s : "0";
}

const char *oklc_cpu_slot_count(Cpu *C, const Block *b)
{
    const char *n = NULL;
    for (int a = 0; a < 3; a++)
        if (b->extent[a])
            n = n ? oklc_arena_printf(C->a, "%s * %s", n, b->extent[a]) : b->extent[a];
    return n ? n : "1";
}

/* ---- declarations with one slot per thread ----------------------------------------------- */

/* Clang's spelling of v's type (without its top-level const unless `keep`)
 * as the declaration of `name` (arrays: "float name[4]"). */
static const char *spelled(Cpu *C, const Var *v, const char *name, bool keep)
{
    const char *t = v->type.spelling;
    /* a leading const is the variable's own but for pointers' elements
     * ("const double *[3]": an array of pointers to const) */
    size_t elem = strcspn(t, "[");
    if (!keep && !strncmp(t, "const ", 6) && !memchr(t, '*', elem))
        t += 6;
    size_t n = strlen(t);
    if (!keep && v->type.pointer && v->type.is_const && n > 6 && !strcmp(t + n - 6, " const"))
        n -= 6;
    const char *br = memchr(t, '[', n);
    if (br) {    /* Clang spells an array "float[2]" */
        size_t k = (size_t)(br - t);
        bool blank = k && (t[k - 1] == ' ' || t[k - 1] == '*');
        return oklc_arena_printf(C->a, "%.*s%s%s%.*s", (int)k, t, blank ? "" : " ", name,
                                 (int)(n - k), br);
    }
    return oklc_arena_printf(C->a, "%.*s%s%s", (int)n, t,
                             n && t[n - 1] == '*' ? "" : " ", name);
}

const char *oklc_cpu_declaration(Cpu *C, const Var *v, const char *name)
{
    return spelled(C, v, name, false);
}

const char *oklc_cpu_declare_alone(Cpu *C, Edits *ed, const Var *v)
{
    if (v->static_ || v->thread_local_ || strpbrk(v->type.spelling, "()"))
        return NULL;
    const char *init = v->init_form ? oklc_edits_text(ed, v->init.begin, v->init.end) : "";
    return oklc_arena_printf(C->a, "%s%s%s%s;", v->constexpr_ ? "constexpr " : "",
                             spelled(C, v, v->name, true), v->init_form == '=' ? " = " : "",
                             init);
}

/* name[at] = v's initializer (arrays through a temporary); name is v's
 * slots. */
const char *oklc_cpu_init_slot(Cpu *C, const Var *v, const char *name, const char *at)
{
    const char *init = oklc_cpu_render(C, v->init);
    if (v->type.array) {
        const char *tmp = oklc_cpu_declaration(C, v, "_occa_init");
        const char *form = v->init_form == '=' ? " = " : "";
        return oklc_arena_printf(C->a, "{ %s%s%s; __builtin_memcpy(%s[%s], _occa_init, "
                                 "sizeof _occa_init); }",
                                 tmp, form, init, name, at);
    }
    if (v->init_form == '(')
        return oklc_arena_printf(C->a, "%s[%s] = %s%s;", name, at,
                                 oklc_cpu_declaration(C, v, ""), init);
    return oklc_arena_printf(C->a, "%s[%s] = %s;", name, at, init);
}

bool oklc_cpu_exclusive(const Var *v)
{
    return v->exclusive || v->per_thread || (v->typedef_var && v->typedef_var->exclusive);
}

/* ---- queries ----------------------------------------------------------------------------- */

bool oklc_cpu_uses(const Var *v, Range r)
{
    if (!v)
        return false;
    size_t i = oklc_cpu_first_at(v->refs, v->nrefs, sizeof *v->refs, r.begin);
    return i < v->nrefs && v->refs[i].begin < r.end;
}

const char *oklc_cpu_transposed_name(Cpu *C, const Var *v)
{
    return oklc_arena_printf(C->a, "_occa_t_%s", v->name);
}

bool oklc_cpu_transposed_at(Cpu *C, uint32_t off)
{
    size_t i = oklc_cpu_first_at(C->transposed.data, C->transposed.len,
                                 sizeof *C->transposed.data, off + 1);
    return i > 0 && oklc_in_range(C->transposed.data[i - 1], off);
}

bool oklc_cpu_transposed_in(Cpu *C, Range r)
{
    size_t i = oklc_cpu_first_at(C->transposed.data, C->transposed.len,
                                 sizeof *C->transposed.data, r.begin);
    return i < C->transposed.len && C->transposed.data[i].begin < r.end;
}

bool oklc_cpu_in_split(Cpu *C, uint32_t off)
{
    for (size_t i = 0; i < C->k->nloops; i++) {
        const Loop *l = C->k->loops[i];
        if (oklc_cpu_top_inner(l) && l->node && l->node->has_barrier && oklc_in_range(l->stmt, off))
            return true;
    }
    return false;
}

/* Is `inner` the whole body of `outer`, with bounds that do not depend
 * on it (a rectangular nest OpenMP can collapse)? */
const char *oklc_cpu_plus_one(Cpu *C, const char *x)
{
    long long v;
    return oklc_cpu_literal(x, &v) ? oklc_arena_printf(C->a, "%lld", v + 1)
                                   : oklc_arena_printf(C->a, "%s + 1", x);
}

const char *oklc_cpu_loop_end(Cpu *C, const Loop *l)
{
    const char *end = oklc_cpu_op(C, l->bound);
    return l->cmp == CMP_LE ? oklc_cpu_plus_one(C, end) : end;
}

bool oklc_cpu_collapsible(Cpu *C, const Loop *outer, const Loop *inner)
{
    if (!outer->node || !inner->node || outer->tile_part || inner->tile_part)
        return false;
    const Stmt *body = outer->node->kids[outer->node->nkids - 1];
    if (body->kind == ST_COMPOUND && body->nkids == 1)
        body = body->kids[0];
    return body == inner->node && !oklc_cpu_header_uses(C, inner, outer);
}

/* Does loop l's header use the iterator of loop `of`? */
bool oklc_cpu_header_uses(Cpu *C, const Loop *l, const Loop *of)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (v->name_off != of->iter_off)
            continue;
        for (size_t r = 0; r < v->nrefs; r++)
            if (oklc_in_range(l->header, v->refs[r].begin))
                return true;
    }
    return false;
}

const Var *oklc_cpu_iter_var(Cpu *C, const Loop *l)
{
    for (size_t i = 0; i < C->k->nlocals; i++)
        if (C->k->locals[i]->name_off == l->iter_off)
            return C->k->locals[i];
    return NULL;
}

int oklc_cpu_by_begin(const void *a, const void *b)
{
    const Range *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

const Var *oklc_cpu_for_var(Cpu *C, const Stmt *f)
{
    for (size_t i = 0; i < C->k->nlocals; i++)
        if (C->k->locals[i]->loop_iter && oklc_in_range(f->head, C->k->locals[i]->name_off))
            return C->k->locals[i];
    return NULL;
}

bool oklc_cpu_refers_at(const Var *v, uint32_t off)
{
    for (size_t i = 0; v && i < v->nrefs; i++)
        if (v->refs[i].begin == off)
            return true;
    return false;
}

const Var *oklc_cpu_var_at(Cpu *C, uint32_t off)
{
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (oklc_cpu_refers_at(v, off))
            return v;
    }
    return NULL;
}

bool oklc_cpu_assigned_at(Cpu *C, uint32_t p)
{
    static const char *const writes[] = {"++", "--", "+=", "-=", "*=", "/=", "%=",
                                         "&=", "|=", "^=", "<<=", ">>="};
    const char *t = C->E->nz->text;
    p = oklc_cpu_skip_blanks(t, p, (uint32_t)C->E->nz->len);
    for (size_t w = 0; w < OKLC_COUNTOF(writes); w++)
        if (!strncmp(t + p, writes[w], strlen(writes[w])))
            return true;
    return t[p] == '=' && t[p + 1] != '=';
}

bool oklc_cpu_written_at(Cpu *C, Range ref)
{
    const char *t = C->E->nz->text;
    if (oklc_cpu_assigned_at(C, ref.end))
        return true;
    uint32_t b = ref.begin;
    while (b > 0 && isspace((unsigned char)t[b - 1]))
        b--;
    if (b >= 2 && (!strncmp(t + b - 2, "++", 2) || !strncmp(t + b - 2, "--", 2)))
        return true;
    return b >= 1 && t[b - 1] == '&' && (b < 2 || t[b - 2] != '&') &&
           oklc_cpu_unary(t, 0, b - 1);         /* its address is taken (not a && v) */
}

/* Does the loop write v (or take its address) anywhere in range r? */
bool oklc_cpu_written_in(Cpu *C, const Var *v, Range r)
{
    for (size_t i = 0; i < v->nrefs; i++)
        if (oklc_in_range(r, v->refs[i].begin) && oklc_cpu_written_at(C, v->refs[i]))
            return true;
    return false;
}

/* Functions of the preludes and <math.h> that compute a value from their
 * arguments and nothing else: a call of one is as pure as its arguments
 * (unless the file defines a function of that name). */
static const char *const pure_functions[] = {
    "min", "max", "clamp", "abs", "fabs", "fabsf", "fmin", "fmax", "fminf", "fmaxf",
    "sqrt", "sqrtf", "cbrt", "cbrtf", "rsqrt", "rsqrtf", "exp", "expf", "exp2", "exp2f",
    "log", "logf", "log2", "log2f", "pow", "powf", "floor", "floorf", "ceil", "ceilf",
    "round", "roundf", "trunc", "truncf", "sin", "sinf", "cos", "cosf", "tanh", "tanhf",
    "fma", "fmaf", "copysign", "copysignf", NULL};

/* Is the call whose '(' follows the identifier ending at q one of them?
 * A member call (x.f(), p->f()) or another namespace's is not. */
static bool pure_call(Cpu *C, const char *t, uint32_t b, uint32_t q)
{
    uint32_t n = q;
    while (n > b && oklc_ident_char(t[n - 1]))
        n--;
    size_t len = q - n;
    bool known = false;
    for (const char *const *f = pure_functions; *f && !known; f++)
        known = strlen(*f) == len && !strncmp(*f, t + n, len);
    if (!known || (n > b && (t[n - 1] == '.' || t[n - 1] == '>')))
        return false;
    if (n > b && t[n - 1] == ':' && !(n - b >= 5 && !strncmp(t + n - 5, "std::", 5)))
        return false;
    for (size_t i = 0; i < C->E->m->nfunctions; i++)
        if (strlen(C->E->m->functions[i]->name) == len &&
            !strncmp(C->E->m->functions[i]->name, t + n, len))
            return false;                       /* the file's own */
    return true;
}

/* Has [b, e) no side effect and no call but of a pure function
 * (subscripts are allowed when `reads`)? */
static bool pure(Cpu *C, const char *t, uint32_t b, uint32_t e, bool reads)
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
            if (q > b && oklc_ident_char(t[q - 1]) && !pure_call(C, t, b, q))
                return false;                   /* a call */
        }
        if (ch == '&' && nx == '&')
            p++;                                /* a && b */
        else if ((ch == '*' || ch == '&') && oklc_cpu_unary(t, b, p) && !reads)
            return false;                       /* a dereference, an address */
    }
    return true;
}

bool oklc_cpu_pure(Cpu *C, const char *expr, bool reads)
{
    return pure(C, expr, 0, (uint32_t)strlen(expr), reads);
}

bool oklc_cpu_pure_in(Cpu *C, Range r, bool reads)
{
    return pure(C, C->E->nz->text, r.begin, r.end, reads);
}

/* Does r use l's iterator or a per-thread (@exclusive) value? */
bool oklc_cpu_per_thread(Cpu *C, Range r, const Loop *l)
{
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        bool it = v->name_off == l->iter_off;
        for (size_t j = 0; j < v->nrefs && (it || oklc_cpu_exclusive(v)); j++)
            if (oklc_in_range(r, v->refs[j].begin))
                return true;                    /* the iterator, or a per-thread value */
    }
    return false;
}

bool oklc_cpu_unchanged_array(Cpu *C, const Var *v)
{
    if (v->kind != VAR_PARAM || !(v->type.pointer || v->type.array) || !v->type.element_const)
        return false;
    for (size_t i = 0; !v->restrict_ && i < C->k->nparams; i++) {
        const Var *p = C->k->params[i];
        if ((p->type.pointer || p->type.array) && !p->type.element_const && !p->restrict_)
            return false;
    }
    return true;
}

/* ---- the uses of an array ----------------------------------------------------------------- */

const Stmt *oklc_cpu_kid_at(const Stmt *st, uint32_t off)
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

ElemUse oklc_cpu_element_use(Cpu *C, const Stmt *st, Range ref, size_t dims, Range *sub)
{
    const char *t = C->E->nz->text;
    uint32_t n = (uint32_t)C->E->nz->len, end = 0;
    Range all[OKLC_CPU_MAX_DIMS + 1];
    if (dims > OKLC_CPU_MAX_DIMS || oklc_cpu_subscripts(C, ref.end, all, dims + 1, &end) != dims ||
        in_atomic(C->k, ref.begin))
        return USE_OTHER;
    memcpy(sub, all, dims * sizeof *sub);
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


bool oklc_cpu_has_atomic(Cpu *C, Range r)
{
    for (size_t i = 0; i < C->k->natomics; i++)
        if (oklc_in_range(r, C->k->atomics[i]->stmt.begin))
            return true;
    return false;
}

bool oklc_cpu_reduced(const Cpu *C, const Atomic *at)
{
    for (size_t i = 0; i < C->reduced.len; i++)
        if (C->reduced.data[i] == at)
            return true;
    return false;
}

bool oklc_cpu_has_jump(const Stmt *st, bool barriers)
{
    if (st->kind == ST_RETURN || st->kind == ST_GOTO || st->kind == ST_BREAK ||
        st->kind == ST_CONTINUE || (barriers && st->barrier))
        return true;
    for (size_t i = 0; i < st->nkids; i++)
        if (oklc_cpu_has_jump(st->kids[i], barriers))
            return true;
    return false;
}

/* Is f `for (T n = base + t; cond; n += S)` over the threads t of l (or
 * `t + base`), base free of per-thread values? (by_threads: S is l's
 * count.) */
bool oklc_cpu_strided(Cpu *C, const Loop *l, const Stmt *f, Strided *s)
{
    const char *t = C->E->nz->text;
    if (f->kind != ST_FOR || f->loop || !f->nkids)
        return false;
    Range h = f->head;
    uint32_t s1 = h.begin, s2;
    while (s1 < h.end && t[s1] != ';')
        s1++;
    for (s2 = s1 + 1; s2 < h.end && t[s2] != ';'; s2++)
        ;
    if (s2 >= h.end)
        return false;
    uint32_t eq = h.begin;
    while (eq < s1 && t[eq] != '=')
        eq++;
    if (eq >= s1)
        return false;
    Range init = oklc_cpu_trimmed(t, eq + 1, s1), step = oklc_cpu_trimmed(t, s2 + 1, h.end);
    Range name = oklc_cpu_trimmed(t, h.begin, eq);
    uint32_t nb = name.end;
    while (nb > name.begin && oklc_ident_char(t[nb - 1]))
        nb--;
    s->n = oklc_arena_strndup(C->a, t + nb, name.end - nb);
    s->base = NULL;
    int depth = 0;
    for (uint32_t p = init.begin; p < init.end && !s->base; p++) {
        depth += t[p] == '(' ? 1 : t[p] == ')' ? -1 : 0;
        if (depth || t[p] != '+' || oklc_cpu_unary(t, init.begin, p))
            continue;
        Range a = oklc_cpu_trimmed(t, init.begin, p), b = oklc_cpu_trimmed(t, p + 1, init.end);
        Range other = oklc_cpu_text_is(t, a, l->iter)   ? b
                      : oklc_cpu_text_is(t, b, l->iter) ? a
                                                        : (Range){0, 0};
        if (other.end && !oklc_cpu_per_thread(C, other, l))
            s->base = oklc_arena_strndup(C->a, t + other.begin, other.end - other.begin);
    }
    /* the step: n += T, with or without blanks */
    size_t nl = strlen(s->n);
    uint32_t op = oklc_cpu_skip_blanks(t, step.begin + (uint32_t)nl, step.end);
    if (!s->base || strncmp(t + step.begin, s->n, nl) || op + 2 > step.end ||
        strncmp(t + op, "+=", 2))
        return false;
    Range by = oklc_cpu_trimmed(t, op + 2, step.end);
    long long a, b;
    const char *trips = oklc_arena_strndup(C->a, t + by.begin, by.end - by.begin);
    s->step = by;
    s->by_threads = !strcmp(trips, l->trips) ||
                    (oklc_cpu_literal(trips, &a) && l->trips_known && a == l->ntrips) ||
                    (oklc_cpu_literal(l->bound, &b) && oklc_cpu_literal(trips, &a) && a == b);
    s->decl = oklc_cpu_render(C, oklc_cpu_trimmed(t, h.begin, eq));
    s->cond = oklc_cpu_trimmed(t, s1 + 1, s2);
    return true;
}

/* ---- integer divisions -------------------------------------------------------------------- */

/* The '(' or '[' that opens the group closed at c (from if none). */
static uint32_t group_open(const char *t, uint32_t from, uint32_t c)
{
    const char close = t[c], open = close == ']' ? '[' : '(';
    int depth = 0;
    for (uint32_t p = c + 1; p-- > from;) {
        depth += t[p] == close ? 1 : t[p] == open ? -1 : 0;
        if (!depth)
            return p;
    }
    return from;
}

/* The operand of a binary operator that ends at p (left) or starts at p
 * (right): a name or a number, or a group in parentheses, with the
 * subscripts and call parentheses after it (`x[gi % N]`, `f(a)`). */
static uint32_t left_operand(const char *t, uint32_t from, uint32_t p)
{
    for (;;) {
        while (p > from && isspace((unsigned char)t[p - 1]))
            p--;
        if (p > from && (t[p - 1] == ']' || t[p - 1] == ')')) {
            p = group_open(t, from, p - 1);
            continue;
        }
        while (p > from && oklc_ident_char(t[p - 1]))
            p--;
        return p;
    }
}

/* Just past the group opened at o (end if it does not close). */
static uint32_t past_group(const char *t, uint32_t o, uint32_t end)
{
    uint32_t c = oklc_cpu_closing(t, o, end);
    return c < end ? c + 1 : end;
}

static uint32_t right_operand(const char *t, uint32_t p, uint32_t end)
{
    p = oklc_cpu_skip_blanks(t, p, end);
    if (p < end && t[p] == '(')
        p = past_group(t, p, end);
    while (p < end && oklc_ident_char(t[p]))
        p++;
    for (uint32_t q; (q = oklc_cpu_skip_blanks(t, p, end)) < end && (t[q] == '[' || t[q] == '(');)
        p = past_group(t, q, end);
    return p;
}

/* Is the divisor [b, e) known when compiled: a constant expression, or a
 * const variable with one as its initializer? */
static bool constant_divisor(Cpu *C, const char *t, uint32_t b, uint32_t e)
{
    int64_t value;
    if (oklc_const_eval(oklc_arena_strndup(C->a, t + b, e - b), NULL, &value) == CONST_VALUE)
        return true;
    const Var *v = oklc_cpu_var_at(C, b);
    return v && v->type.is_const && v->init_form && oklc_cpu_text_is(t, (Range){b, e}, v->name) &&
           oklc_const_eval(oklc_cpu_render(C, v->init), NULL, &value) == CONST_VALUE;
}

/* Are the names in [b, e) all integer variables, and its numbers integers
 * (a '/' between them divides integers)? */
static bool integral(Cpu *C, const char *t, uint32_t b, uint32_t e)
{
    if (b > 0 && (t[b - 1] == '.' || t[b - 1] == '>'))
        return false;                           /* a member, a float's fraction */
    for (uint32_t p = b; p < e;) {
        if (!oklc_ident_char(t[p])) {
            if (t[p] == '.' || t[p] == '"' || t[p] == '\'')
                return false;
            p++;
            continue;
        }
        uint32_t q = p;
        while (q < e && oklc_ident_char(t[q]))
            q++;
        if (isdigit((unsigned char)t[p])) {
            bool hex = q - p > 2 && t[p] == '0' && (t[p + 1] == 'x' || t[p + 1] == 'X');
            for (uint32_t i = p; i < q && !hex; i++)
                if (!isdigit((unsigned char)t[i]) && !strchr("uUlL", t[i]))
                    return false;               /* 1e3, 2.f */
        } else {
            const Var *v = oklc_cpu_var_at(C, p);
            if (!v || !v->is_int)
                return false;
        }
        p = q;
    }
    return true;
}

/* Past the string or character literal that opens at p. */
static uint32_t past_literal(const char *t, uint32_t p, uint32_t end)
{
    const char quote = t[p];
    for (p++; p < end && t[p] != quote; p++)
        p += t[p] == '\\';
    return p < end ? p + 1 : end;
}

size_t oklc_cpu_divisions(Cpu *C, Range r, const char **texts, size_t max)
{
    const char *t = C->E->nz->text;
    size_t n = 0;
    for (uint32_t p = r.begin; p < r.end; p++) {
        if (t[p] == '"' || t[p] == '\'') {
            p = past_literal(t, p, r.end) - 1;
            continue;
        }
        if ((t[p] != '%' && t[p] != '/') || (p + 1 < r.end && strchr("=/*", t[p + 1])) ||
            (p > r.begin && strchr("/*", t[p - 1])))
            continue;                           /* %=, /=, a comment */
        uint32_t b = left_operand(t, r.begin, p), e = right_operand(t, p + 1, r.end);
        uint32_t d = oklc_cpu_skip_blanks(t, p + 1, e);
        if (b == p || d == e || constant_divisor(C, t, d, e) ||
            (t[p] == '/' && (!integral(C, t, b, p) || !integral(C, t, d, e))))
            continue;
        if (texts && n < max) {
            Buf o;
            oklc_buf_init(&o, C->a);
            for (uint32_t i = b; i < e; i++)
                if (!isspace((unsigned char)t[i]))
                    oklc_buf_putc(&o, t[i]);
            texts[n] = o.data;
        }
        n++;
    }
    return n;
}
