/*
 * cpu_instrument.c - counters in the serial output (oklc transpile -b
 * serial --count-ops): each floating-point operation and each load and
 * store of global and @shared memory adds to _occa_counts[] as it runs, so
 * that a run checks what `oklc stats` predicts from the kernel alone
 * (tests/stats/test_counts.c). The operations and their memory are read
 * as stats reads them (Model.ops, analysis/memory.c); what runs, how many
 * times, is the compiled code's.
 *
 * A counted operand is wrapped: `(_occa_counts[0] += 1, b)`, an element
 * `(_occa_counts[1] += 1, _occa_counts[2] += 8, a[i])` (an lvalue still:
 * C++'s comma keeps it one). An element of a kernel's array also goes
 * through `*_occa_touch(&(a[i]))`, which hands its address to
 * `_occa_touched` when a test set it: the distinct bytes a run touches,
 * against the footprint stats predicts. The wraps are recorded before the backend's
 * own edits, in the plain translation (no CPU rewrite moves a part of
 * what they wrap).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "../analysis/analysis.h"

typedef struct Wrap {
    Range       r;
    const char *open, *close;
} Wrap;

typedef VEC(Wrap) Wraps;

/* Wraps r in "(_occa_counts[i] += by, ..., r)" for each counter of `add`
 * (r through _occa_touch when `touch`). */
static void wrap(Emit *E, Wraps *w, Range r, const long long add[OKLC_COUNT_N], bool touch)
{
    if (r.begin >= r.end || r.end == UINT32_MAX)
        return;
    Buf b;
    oklc_buf_init(&b, &E->c->arena);
    oklc_buf_puts(&b, "(");
    for (int i = 0; i < OKLC_COUNT_N; i++)
        if (add[i])
            oklc_buf_printf(&b, "_occa_counts[%d] += %lld, ", i, add[i]);
    if (touch)
        oklc_buf_puts(&b, "*_occa_touch(&(");
    vec_push(&E->c->arena, w, ((Wrap){r, b.data, touch ? ")))" : ")"}));
}

/* Is element use op `v[...]` (not okl::at(v, i), whose value may not be
 * one in memory)? */
static bool subscripted(Emit *E, const Op *op)
{
    size_t n = op->var ? strlen(op->var->name) : 0;
    Range sub;
    uint32_t after;
    return n && !strncmp(E->c->norm->text + op->range.begin, op->var->name, n) &&
           oklc_subscripts(E->c, op->range.begin + (uint32_t)n, op->range.end, &sub, 1,
                           &after) == 1;
}

/* opens: the outer first at one position */
static int by_open(const void *x, const void *y)
{
    const Wrap *a = x, *b = y;
    if (a->r.begin != b->r.begin)
        return a->r.begin < b->r.begin ? -1 : 1;
    return a->r.end > b->r.end ? -1 : a->r.end < b->r.end;
}

/* closes: the inner first at one position */
static int by_close(const void *x, const void *y)
{
    const Wrap *a = x, *b = y;
    if (a->r.end != b->r.end)
        return a->r.end < b->r.end ? -1 : 1;
    return a->r.begin > b->r.begin ? -1 : a->r.begin < b->r.begin;
}

static void kernel_wraps(Emit *E, const Kernel *k, Wraps *w)
{
    const Model *m = E->m;
    const OpMem *mem = oklc_op_memory(E->c, m, k);
    for (size_t i = oklc_first_op(m, k->body.begin);
         i < m->nops && m->ops[i].range.begin < k->body.end; i++) {
        const Op *op = &m->ops[i];
        long long add[OKLC_COUNT_N] = {0};
        if (mem[i].constant)
            continue;
        if (op->kind <= OP_SPECIAL) {
            add[OKLC_COUNT_FLOPS] = op->kind == OP_FMA ? 2 : 1;
            /* a + b: the operand b (evaluated when the operation is); a call: itself */
            bool call = op->kind != OP_ADD && op->kind != OP_MUL && op->kind != OP_DIV;
            wrap(E, w, call ? op->range : op->b, add, false);
            continue;
        }
        if (op->kind != OP_ELEMENT || mem[i].use == MEM_NONE)
            continue;
        long long bytes = op->bytes > 0 ? op->bytes : 0;
        bool load = mem[i].use != MEM_STORE, store = mem[i].use != MEM_LOAD;
        if (mem[i].atomic) {
            add[OKLC_COUNT_ATOMICS] = 1;
        } else if (mem[i].shared) {
            add[OKLC_COUNT_SHARED_LOADS] = load;
            add[OKLC_COUNT_SHARED_STORES] = store;
        } else {
            add[OKLC_COUNT_GLOBAL_LOADS] = load;
            add[OKLC_COUNT_GLOBAL_LOAD_BYTES] = load * bytes;
            add[OKLC_COUNT_GLOBAL_STORES] = store;
            add[OKLC_COUNT_GLOBAL_STORE_BYTES] = store * bytes;
        }
        wrap(E, w, op->range, add, !mem[i].shared && subscripted(E, op));
    }
}

void oklc_cpu_instrument(Emit *E)
{
    if (!E->c->count_ops)
        return;
    oklc_buf_printf(&E->head, "/* oklc transpile --count-ops: what ran (docs/stats.md) */\n"
                              "extern \"C\" { __attribute__((visibility(\"default\"))) "
                              "unsigned long long _occa_counts[%d] = {};\n"
                              "__attribute__((visibility(\"default\"))) "
                              "void (*_occa_touched)(const void *, unsigned long) = 0; }\n"
                              "template <class T> static inline T *_occa_touch(T *p) {\n"
                              "  if (_occa_touched) _occa_touched((const void *)p, sizeof(T));\n"
                              "  return p;\n"
                              "}\n", OKLC_COUNT_N);
    Wraps w = {0};
    for (size_t i = 0; i < E->m->nkernels; i++)
        kernel_wraps(E, E->m->kernels[i], &w);
    /* the closes go before the text after the operand: after what the
     * backend appends to it (an @exclusive's [thread]); the closes at a
     * position before the opens there */
    qsort(w.data, w.len, sizeof(Wrap), by_close);
    for (size_t i = 0; i < w.len; i++)
        oklc_edit_before(&E->ed, w.data[i].r.end, w.data[i].close);
    qsort(w.data, w.len, sizeof(Wrap), by_open);
    for (size_t i = 0; i < w.len; i++)
        oklc_edit_before(&E->ed, w.data[i].r.begin, w.data[i].open);
}
