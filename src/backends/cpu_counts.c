/*
 * cpu_counts.c - counting into @shared memory on a CPU: a histogram's
 * `@atomic s_h[data[n]] += 1` in a long loop over the block's elements.
 *
 * Takes a grid-stride loop run in order, from cpu_shape.c (its only
 * caller); gives the loop with counting copies of @shared arrays, or NULL.
 *
 * On a GPU the threads' atomic adds to @shared memory spread over the
 * bins. On a CPU one thread runs the loop, and each add loads what the
 * previous one stored whenever two neighbouring elements fall in the same
 * bin: the next add waits for the store. With four copies of the array,
 * elements n, n + 1, n + 2 and n + 3 count into different copies, the
 * adds of one pass do not wait for each other, and the copies are added
 * into the array after the loop (as a CPU histogram written by hand does:
 * 7% faster on bench/compare's histogram).
 *
 * The loop is a grid-stride loop run in order (cpu_shape.c). An array
 * qualifies when it is a one-dimensional @shared array of integers, of at
 * most 4 KiB (the copies stay in the core's first-level cache), whose
 * every use in the loop is the target of an @atomic +=, -=, ++ or --: the
 * sum of the copies is then the same integer whatever the order of the
 * adds. The loop must compare its iterator with < or <= against a bound
 * without calls or memory reads, and write neither; the copies are used
 * only when the loop has at least 16 elements per element of the array,
 * so that zeroing and adding the copies costs little.
 *
 * Where the element type is a built-in one (it can be named before the
 * @outer loop), the copies are declared once, zeroed, before the
 * top-level @outer loop (each OpenMP thread has its own, firstprivate),
 * and zeroed again as they are added: the pass that adds them zeroes
 * them, and no block pays a pass of its own to clear them (1-2% of
 * bench/compare's histogram on one core). Otherwise each block declares
 * its own.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

enum { COPIES = 4, ELEMENTS_PER_BIN = 16, ARRAY_BYTES_MAX = 4096 };

typedef struct Counted {
    const Var *v;
    const char *copies;        /* _occa_<name>_copies */
    bool kept;                 /* declared before the @outer loop (C->scratch) */
} Counted;

/* Is the atomic one that adds to an integer (+=, -=, ++, --)? */
static bool adds(const Atomic *at)
{
    return !at->block && at->scalar && !at->is_float &&
           (at->op == AT_ADD || at->op == AT_SUB || at->op == AT_INC || at->op == AT_DEC);
}

/* Is the use of v at ref the x of an adding @atomic `v[i] op= ...` in r? */
static bool counted_use(Cpu *C, const Var *v, Range ref, Range r)
{
    const char *t = C->E->nz->text;
    for (size_t i = 0; i < C->k->natomics; i++) {
        const Atomic *at = C->k->atomics[i];
        if (at->target != v || at->lhs.begin != ref.begin || !oklc_in_range(r, at->stmt.begin) ||
            !adds(at))
            continue;
        uint32_t p = oklc_cpu_skip_blanks(t, ref.end, at->lhs.end);
        return p < at->lhs.end && t[p] == '[' && t[at->lhs.end - 1] == ']';
    }
    return false;
}

/* A one-dimensional @shared integer array used in r only as the x of
 * adding @atomic statements (at least one). */
static bool counted(Cpu *C, const Var *v, Range r)
{
    bool shared = v->shared || (v->typedef_var && v->typedef_var->shared);
    if (!shared || !v->type.array || v->type.array_dims != 1 || v->type.array_size <= 0 ||
        v->size <= 0 || v->size > ARRAY_BYTES_MAX || !v->type.element ||
        strchr(v->type.element, '*'))
        return false;
    size_t uses = 0;
    for (size_t i = 0; i < v->nrefs; i++) {
        if (!oklc_in_range(r, v->refs[i].begin))
            continue;
        if (!counted_use(C, v, v->refs[i], r))
            return false;
        uses++;
    }
    return uses > 0;
}

/* `n < end` or `n <= end`: the operator and the bound; false otherwise. */
static bool upper_bound(Cpu *C, const char *n, Range cond, const char **op, const char **end)
{
    const char *t = C->E->nz->text;
    size_t len = strlen(n);
    uint32_t p = cond.begin;
    if (cond.end - p <= len || strncmp(t + p, n, len) || oklc_ident_char(t[p + len]))
        return false;
    p = oklc_cpu_skip_blanks(t, p + (uint32_t)len, cond.end);
    if (p + 1 >= cond.end || t[p] != '<' || t[p + 1] == '<')
        return false;
    *op = t[p + 1] == '=' ? "<=" : "<";
    p += t[p + 1] == '=' ? 2 : 1;
    *end = oklc_cpu_render(C, (Range){oklc_cpu_skip_blanks(t, p, cond.end), cond.end});
    /* one operand, evaluated as often as the loop likes: no operator of
     * lower precedence than < outside brackets; no call, side effect or
     * memory read (the body may write memory) */
    int depth = 0;
    for (const char *s = *end; *s; s++) {
        depth += strchr("([{", *s) ? 1 : strchr(")]}", *s) ? -1 : 0;
        if (!depth && strchr("<>=&|^?,:", *s) && !(s[0] == ':' && s[1] == ':') &&
            !(s > *end && s[-1] == ':' && s[0] == ':'))
            return false;
    }
    return **end && oklc_cpu_pure(C, *end, false);
}

/* Does the code in r write a variable that `of` reads? */
static bool writes_of(Cpu *C, Range of, Range r)
{
    const Kernel *k = C->k;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *v = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (oklc_refers_in(v, of) && oklc_cpu_written_in(C, v, r))
            return true;
    }
    return false;
}

/* The code in r with the counted arrays replaced by their copy c. */
static const char *in_copy(Cpu *C, const Counted *cs, size_t ncs, Range r, int c)
{
    uint32_t mark = oklc_edits_mark(&C->E->ed);
    for (size_t i = 0; i < ncs; i++)
        for (size_t j = 0; j < cs[i].v->nrefs; j++)
            if (oklc_in_range(r, cs[i].v->refs[j].begin))
                oklc_edit_replace(&C->E->ed, cs[i].v->refs[j].begin, cs[i].v->refs[j].end,
                                  oklc_arena_printf(C->a, "%s[%d]", cs[i].copies, c));
    const char *text = oklc_cpu_render(C, r);
    oklc_edits_rewind(&C->E->ed, mark);
    return text;
}

/* Statements as lines at indentation `ind`: their common indentation
 * taken off, blank lines dropped. */
static void put_lines(Buf *o, const char *text, const char *ind)
{
    size_t common = (size_t)-1;
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        size_t sp = strspn(l, " \t");
        if (l[sp] && l[sp] != '\n' && sp < common)
            common = sp;
    }
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        size_t len = strcspn(l, "\n"), sp = strspn(l, " \t");
        if (sp < len)
            oklc_buf_printf(o, "%s%.*s\n", ind, (int)(len - common), l + common);
    }
}

/* A type that can be named before the @outer loops: built-in names only
 * (a type the kernel declares inside its loops cannot). */
static bool builtin_type(const char *type)
{
    static const char *const names[] = {
        "unsigned", "signed", "char", "short", "int", "long", "uchar", "ushort", "uint",
        "ulong", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
        "uint64_t", "size_t", "ptrdiff_t"};
    for (const char *p = type; *p;) {
        size_t len = 0;
        while (oklc_ident_char(p[len]))
            len++;
        if (!len) {
            if (*p != ' ')
                return false;
            p++;
            continue;
        }
        bool known = false;
        for (size_t i = 0; i < sizeof names / sizeof *names && !known; i++)
            known = strlen(names[i]) == len && !strncmp(p, names[i], len);
        if (!known)
            return false;
        p += len;
    }
    return *type != 0;
}

/* The copies of v for the counting loop at `at`: kept for all of the
 * thread's blocks when the top-level @outer loop around it is known and
 * v's type can be named there; each loop has copies of its own. */
static Counted copies_of(Cpu *C, const Var *v, uint32_t at)
{
    const char *name = oklc_arena_printf(C->a, "_occa_%s_copies", v->name);
    const Loop *top = NULL;
    for (size_t i = 0; i < C->k->nouters && !top; i++)
        if (oklc_in_range(C->k->outers[i]->stmt, at))
            top = C->k->outers[i];
    if (!top || !builtin_type(v->type.element))
        return (Counted){v, name, false};
    size_t same = 0;
    for (size_t i = 0; i < C->scratch.len; i++)
        same += !strncmp(C->scratch.data[i].name, name, strlen(name));
    if (same)
        name = oklc_arena_printf(C->a, "%s%zu", name, same);
    const char *decl = oklc_arena_printf(C->a, "%s %s[%d][%lld] = {};  /* for all blocks */",
                                         v->type.element, name,
                                         COPIES - 1, (long long)v->type.array_size);
    vec_push(C->a, &C->scratch, ((Scratch){.top = top, .name = name, .decl = decl}));
    return (Counted){v, name, true};
}

/* The copies added into the array after the loop (and zeroed for the
 * next block where they are kept). */
static void add_copies(Buf *o, const Counted *c, const char *ind)
{
    oklc_buf_printf(o, "%sfor (int _occa_i = 0; _occa_i < %lld; ++_occa_i)%s\n", ind,
                    (long long)c->v->type.array_size, c->kept ? " {" : "");
    oklc_buf_printf(o, "%s  %s[_occa_i] +=", ind, c->v->name);
    for (int k = 0; k < COPIES - 1; k++)
        oklc_buf_printf(o, "%s %s[%d][_occa_i]", k ? " +" : "", c->copies, k);
    oklc_buf_puts(o, ";\n");
    if (!c->kept)
        return;
    oklc_buf_printf(o, "%s  ", ind);
    for (int k = 0; k < COPIES - 1; k++)
        oklc_buf_printf(o, "%s[%d][_occa_i] = ", c->copies, k);
    oklc_buf_printf(o, "0;\n%s}\n", ind);
}

/* The statement f, `for (T n = base; n < end; ++n) body` after the
 * grid-stride rewrite (`decl` is "T n", `cond` the condition), with
 * copies of the arrays it counts into; NULL when nothing qualifies. */
const char *oklc_cpu_counting_loop(Cpu *C, const Stmt *f, const char *decl, const char *base,
                                   Range cond)
{
    const Stmt *st = f->kids[f->nkids - 1];
    const Var *n = oklc_cpu_for_var(C, f);
    const char *op, *end;
    size_t dl = strlen(decl), nl = n ? strlen(n->name) : 0;
    if (!n || dl <= nl || strcmp(decl + dl - nl, n->name) || oklc_ident_char(decl[dl - nl - 1]) ||
        !upper_bound(C, n->name, cond, &op, &end) || writes_of(C, cond, st->range))
        return NULL;                   /* decl must be "T n": the type is what precedes n */
    Counted *cs = oklc_arena_alloc(C->a, C->k->nlocals * sizeof *cs);
    size_t ncs = 0;
    int64_t bins = 0;
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (counted(C, v, st->range)) {
            cs[ncs++] = copies_of(C, v, f->range.begin);
            if (v->type.array_size > bins)
                bins = v->type.array_size;
        }
    }
    if (!ncs)
        return NULL;
    /* the body's statements, without its braces */
    Range inner = st->range;
    if (st->kind == ST_COMPOUND)
        inner = (Range){inner.begin + 1, inner.end - 1};
    const char *body = oklc_cpu_render(C, inner);
    const char *type = oklc_arena_strndup(C->a, decl, dl - nl);
    const char *q = oklc_arena_printf(C->a, "_occa_%s_from", n->name);
    const char *ind = oklc_emit_indent(C->E, f->range.begin);
    const char *in1 = oklc_arena_printf(C->a, "%s  ", ind);
    const char *in2 = oklc_arena_printf(C->a, "%s    ", ind);
    const char *in3 = oklc_arena_printf(C->a, "%s      ", ind);
    Buf o;
    oklc_buf_init(&o, C->a);
    oklc_buf_printf(&o, "%s%s = %s;\n", type, q, base);
    oklc_buf_printf(&o, "%sif (%s - %s >= %lld) {  /* %d copies: adds that do not wait for "
                    "each other */\n", ind, oklc_cpu_op(C, end), q,
                    (long long)(bins * ELEMENTS_PER_BIN), COPIES);
    for (size_t i = 0; i < ncs; i++)
        if (!cs[i].kept)
            oklc_buf_printf(&o, "%sdecltype(%s) %s[%d] = {};\n", in1, cs[i].v->name,
                            cs[i].copies, COPIES - 1);
    oklc_buf_printf(&o, "%sfor (; %s + %d %s %s; %s += %d) {\n", in1, q, COPIES - 1, op,
                    oklc_cpu_op(C, end), q, COPIES);
    for (int c = 0; c < COPIES; c++) {
        oklc_buf_printf(&o, "%s{\n%sconst %s = %s", in2, in3, decl, q);
        if (c)
            oklc_buf_printf(&o, " + %d", c);
        oklc_buf_puts(&o, ";\n");
        put_lines(&o, c ? in_copy(C, cs, ncs, inner, c - 1) : body, in3);
        oklc_buf_printf(&o, "%s}\n", in2);
    }
    oklc_buf_printf(&o, "%s}\n", in1);
    for (size_t i = 0; i < ncs; i++)
        add_copies(&o, &cs[i], in1);
    oklc_buf_printf(&o, "%s}\n%sfor (%s = %s; %s; ++%s)%s", ind, ind, decl, q,
                    oklc_cpu_render(C, cond), n->name,
                    oklc_cpu_render(C, (Range){f->head.end + 1, f->range.end}));
    return o.data;
}
