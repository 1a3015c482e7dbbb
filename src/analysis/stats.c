/*
 * stats.c - what a kernel costs (oklc stats): floating-point operations
 * by kind and precision, loads and stores of global and @shared memory,
 * atomics, barriers, blocks and threads.
 *
 * The kernel's statements are run as a skeleton: integer variables hold
 * numbers that may be polynomials in the parameters not given (poly.c);
 * data (what arrays hold, floating-point values) is unknown. A loop is
 * first counted whole: its body once, with the iterator a new variable M,
 * then summed over M (a product when the body does not depend on M,
 * Faulhaber's sums when it does polynomially). When the body needs to
 * know M (a condition, a bound of an inner loop that is not affine), the
 * loop runs iteration by iteration, which needs its count as a number: a
 * formula in the parameters is then not to be had, numbers are (with
 * --param). A condition on data counts the branch as taken and the counts
 * become upper bounds ("at most"); a loop whose count depends on data
 * cannot be counted. Each @tile loop counts the iterations of the loop it
 * tiles (its guard runs none past the bound).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/map.h>
#include <isl/polynomial.h>
#include <isl/set.h>
#include <isl/val.h>

#include "analysis.h"

/* ---- what is counted ----------------------------------------------------------------------- */

enum { NPREC = 4, NARITH = 6 };
static const char prec_letter[NPREC] = {'h', 'f', 'd', 'l'};
static const char *const prec_name[NPREC] = {"half", "float", "double", "long double"};
static const char *const arith_name[NARITH] = {"add", "mul", "div", "fma", "sqrt", "special"};

typedef enum Cat {
    C_ARITH_END = NPREC * NARITH,      /* precision * NARITH + kind */
    C_GLOAD = C_ARITH_END, C_GLOAD_BYTES, C_GSTORE, C_GSTORE_BYTES,
    C_SLOAD, C_SLOAD_BYTES, C_SSTORE, C_SSTORE_BYTES,
    C_GATOMIC, C_SATOMIC, C_BARRIER, C_BLOCK, C_THREAD,
    NCAT
} Cat;

static const char *const cat_key[NCAT - C_ARITH_END] = {
    "global_loads", "global_load_bytes", "global_stores", "global_store_bytes",
    "shared_loads", "shared_load_bytes", "shared_stores", "shared_store_bytes",
    "global_atomics", "shared_atomics", "barriers", "blocks", "threads"};

typedef struct Counts {
    Num n[NCAT];
} Counts;

/* ---- the run ------------------------------------------------------------------------------ */

enum {
    VAR_COUNTER = 256,        /* ids of loop counters: VAR_COUNTER + depth */
    VAR_ATOM = 512,           /* ids of quotients */
    MAX_DEPTH = 62,
    PARAM_BIT = 63
};

typedef enum VKind { V_NUM, V_DATA, V_STUCK } VKind;

typedef struct Val {
    VKind kind;
    Num   n;
} Val;

typedef struct Atom {          /* floor(n / d), or n mod d: a variable of the formulas */
    uint64_t    mask;         /* the counters and parameters n depends on */
    const char *name;         /* as printed */
    const char *isl;          /* as isl reads it */
} Atom;

typedef struct Slot {
    uint32_t off;             /* a use or the declaration of a variable */
    int      var;
} Slot;

typedef VEC(Slot) Slots;
typedef VEC(uint32_t) Offsets;

typedef struct OpInfo {
    size_t  *guards;          /* the ?:, &&, || whose b or c holds it */
    size_t   nguards;
} OpInfo;

typedef struct Run {
    oklc_ctx     *c;
    const Model  *m;
    Kernel       *k;
    Polys         P;
    const oklc_stats_param *params;
    size_t        nparams;
    VEC(Var *)    vars;       /* the kernel's parameters, locals; the file's globals */
    Val          *val;
    bool         *clobbered;  /* written where the run does not follow */
    Slot         *slots;
    size_t        nslots;
    OpInfo       *info;       /* per model op */
    const OpMem  *mem;        /* per model op */
    VEC(Atom)     atoms;
    bool         *enumerate;  /* per statement seen: runs iteration by iteration */
    VEC(const Stmt *) enum_seen;
    int           depth;
    bool          first;      /* the block's first thread (barriers count once a block) */
    uint64_t      stuck;      /* counters (and PARAM_BIT) a decision needed as numbers */
    bool          upper;      /* a condition on data: at most */
    const char   *fail;       /* why it cannot be counted */
    uint32_t      fail_at;
    const char   *upper_why;
    uint32_t      upper_at;
    int64_t       budget;     /* iterations left to run one by one */
    bool          numbers;    /* every parameter given: the counts are numbers */
    Val          *saved[MAX_DEPTH];
    int           jump;       /* 0, or the statement kind of a jump being taken */
    uint32_t      at;         /* the statement being run */
    struct Parsed {
        Range       r;
        const Expr *e;
    }            *parsed;     /* each range's tree, read once (open hashing) */
    size_t        nparsed, cap;
    uint32_t      stuck_at;   /* where a parameter's value was needed */
    struct Dom   *dom;        /* a guarded nest being counted by isl (NULL: not) */
    isl_ctx      *isl;
    isl_pw_qpolynomial *pw[NCAT];   /* what the guarded nests counted (NULL: none) */
    VEC(struct Summed {
        uint64_t            hash;
        const char         *key;
        isl_pw_qpolynomial *sum;
    })            sums;       /* the sums made, by their text */
    struct Foot  *foot;       /* a run for the footprint (NULL: for the counts) */
} Run;

enum { MAX_CONS = 2 * MAX_DEPTH + 32 };

typedef struct Dom {
    const char *cons[MAX_CONS];   /* the constraints in force */
    int         ncons;
    uint64_t    inner;            /* counters of @inner loops (a block's barriers: thread 0) */
    const char *params;           /* "[N, M]" */
    struct {
        int         var;          /* a variable declared as `c ? a : b` (-1: none) */
        const char *con[2];       /* c, !c */
        Val         value[2];     /* a, b */
    } fork;
    int         ways;             /* ways a split may still take (value splits double the
                                     rest: bounded) */
    bool        failed;
    isl_pw_qpolynomial *sum[NCAT];
} Dom;

/* The distinct elements of the kernel's arrays a run surely touches (the
 * footprint): per array, the union of each access's elements over the
 * points that reach it, an isl set. An access that may not run (under a
 * condition on data) or that isl cannot follow is left out: the footprint
 * is then less than the truth, still a lower bound. */
typedef struct Touched {
    const Var *var;
    int64_t    bytes;         /* an element's */
    isl_set   *elems;
} Touched;

typedef struct Foot {
    VEC(Touched) arrays;
    int          unions;      /* accesses recorded: bounded (one by one, each a point) */
    int          unsure;      /* inside branches on data */
    bool         after_jump;  /* past a jump under a condition on data: nothing is sure */
    const char  *left;        /* why an access was left out (the first) */
    uint32_t     left_at;
} Foot;

/* What a condition on data constrains in a nest counted by isl: nothing
 * (isl reads "true"); the footprint knows such constraints by it. */
static const char DATA_HOLDS[] = "true";

static void fail(Run *R, uint32_t at, const char *why)
{
    if (!R->fail)
        R->fail = why, R->fail_at = at;
}

/* The counts are upper bounds from here on: the first reason is said. */
static void at_most(Run *R, const char *why, uint32_t at)
{
    if (!R->upper)
        R->upper_why = why, R->upper_at = at;
    R->upper = true;
}

static const char *var_name(void *ctx, int v)
{
    Run *R = ctx;
    if (v >= VAR_ATOM)
        return R->atoms.data[v - VAR_ATOM].name;
    if (v >= VAR_COUNTER)
        return oklc_arena_printf(&R->c->arena, "m%d", v - VAR_COUNTER);
    return R->vars.data[v]->name;
}

/* n as isl reads it: rational coefficients, counters m0, m1, ... */
static void isl_text(Run *R, Num n, Buf *b)
{
    if (!n.p) {
        oklc_buf_printf(b, "%lld", (long long)n.k);
        return;
    }
    for (size_t i = 0; i < n.p->n; i++) {
        const Term *t = &n.p->t[i];
        long long m = t->num < 0 ? -(long long)t->num : (long long)t->num;
        oklc_buf_printf(b, "%s", i ? (t->num < 0 ? " - " : " + ") : t->num < 0 ? "-" : "");
        if (t->den != 1)
            oklc_buf_printf(b, "%lld/%lld", m, (long long)t->den);
        else if (m != 1 || !t->nv)
            oklc_buf_printf(b, "%lld", m);
        for (int j = 0; j < t->nv; j++) {
            int v = t->var[j];
            const char *x = v >= VAR_ATOM ? R->atoms.data[v - VAR_ATOM].isl
                            : v >= VAR_COUNTER ? oklc_arena_printf(&R->c->arena, "m%d",
                                                                   v - VAR_COUNTER)
                            : R->vars.data[v]->name;
            bool first = !j && m == 1 && t->den == 1;
            oklc_buf_printf(b, t->exp[j] > 1 ? "%s(%s)^%d" : "%s(%s)", first ? "" : "*", x,
                            t->exp[j]);
        }
    }
}

static uint64_t mask_of(Run *R, Num a)
{
    uint64_t m = 0;
    for (size_t i = 0; a.p && i < a.p->n; i++)
        for (int j = 0; j < a.p->t[i].nv; j++) {
            int v = a.p->t[i].var[j];
            m |= v >= VAR_ATOM ? R->atoms.data[v - VAR_ATOM].mask
                 : v >= VAR_COUNTER ? 1ull << (v - VAR_COUNTER) : 1ull << PARAM_BIT;
        }
    return m;
}

static Val num(Num n)
{
    return (Val){V_NUM, n};
}

static Val konst(int64_t k)
{
    return (Val){V_NUM, {NULL, k}};
}

static Val data(void)
{
    return (Val){V_DATA, {NULL, 0}};
}

/* a value whose number was needed: the decision is left to a caller that
 * knows the counters in it */
static Val stuck(Run *R, Num n)
{
    uint64_t m = mask_of(R, n);
    if ((m >> PARAM_BIT) && !(R->stuck >> PARAM_BIT))
        R->stuck_at = R->at;
    R->stuck |= m;
    return (Val){V_STUCK, {NULL, 0}};
}

/* ---- variables ------------------------------------------------------------------------------ */

static int slot_order(const void *a, const void *b)
{
    const Slot *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int var_at(const Run *R, uint32_t off)
{
    size_t lo = 0, hi = R->nslots;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (R->slots[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < R->nslots && R->slots[lo].off == off ? R->slots[lo].var : -1;
}

static int var_index(const Run *R, const Var *v)
{
    return v ? var_at(R, v->name_off) : -1;
}

/* ---- expressions --------------------------------------------------------------------------- */

static Val eval(Run *R, const Expr *e);
static Val eval_range(Run *R, Range r);

static Val atom(Run *R, Num n, int64_t d, bool mod)
{
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_buf_printf(&b, mod ? "((" : "floor((");
    oklc_num_print(n, &b, var_name, R);
    oklc_buf_printf(&b, mod ? ") mod %lld)" : ")/%lld)", (long long)d);
    for (size_t i = 0; i < R->atoms.len; i++)
        if (!strcmp(R->atoms.data[i].name, b.data))
            return num(oklc_num_var(&R->P, VAR_ATOM + (int)i));
    if (R->atoms.len >= 1000) {
        fail(R, 0, "too many quotients");
        return data();
    }
    Buf t;
    oklc_buf_init(&t, &R->c->arena);
    isl_text(R, n, &t);
    const char *x = t.data;
    Atom a = {mask_of(R, n), b.data,
              mod ? oklc_arena_printf(&R->c->arena, "((%s) - %lld*floor((%s)/%lld))", x,
                                      (long long)d, x, (long long)d)
                  : oklc_arena_printf(&R->c->arena, "floor((%s)/%lld)", x, (long long)d)};
    vec_push(&R->c->arena, &R->atoms, a);
    return num(oklc_num_var(&R->P, VAR_ATOM + (int)R->atoms.len - 1));
}

static Val name(Run *R, const Expr *e)
{
    int i = var_at(R, e->off);
    if (i < 0)
        return data();
    const Var *v = R->vars.data[i];
    if (v->kind == VAR_GLOBAL && v->constexpr_ && v->is_int && v->init.end)
        return eval_range(R, v->init);
    return R->clobbered[i] ? data() : R->val[i];
}

static int64_t fold_div(int64_t a, int64_t b, bool mod)
{
    return mod ? a % b : a / b;
}

/* -1, 0, 1: the sign of a, when it is a number */
static Val sign(Run *R, Val a)
{
    int64_t k;
    if (a.kind != V_NUM)
        return a;
    if (!oklc_num_const(a.n, &k))
        return stuck(R, a.n);
    return konst(k < 0 ? -1 : k > 0);
}

static Val arith(Run *R, const Expr *e, Val a, Val b)
{
    if (a.kind != V_NUM || b.kind != V_NUM)
        return a.kind == V_STUCK || b.kind == V_STUCK ? (Val){V_STUCK, {NULL, 0}} : data();
    int64_t x, y, r;
    bool ka = oklc_num_const(a.n, &x), kb = oklc_num_const(b.n, &y);
    switch (e->op) {
    case X_ADD: return num(oklc_num_add(&R->P, a.n, b.n));
    case X_SUB: return num(oklc_num_sub(&R->P, a.n, b.n));
    case X_MUL: return num(oklc_num_mul(&R->P, a.n, b.n));
    case X_DIV: case X_MOD: case X_SHR:
        if (!kb)
            return stuck(R, b.n);
        if (e->op == X_SHR)
            y = y >= 0 && y < 62 ? 1ll << y : 0;
        if (y <= 0)
            return ka && y ? konst(fold_div(x, y, e->op == X_MOD)) : data();
        if (ka)
            return konst(e->op == X_SHR ? x >> __builtin_ctzll((unsigned long long)y)
                                        : fold_div(x, y, e->op == X_MOD));
        return atom(R, a.n, y, e->op == X_MOD);
    case X_SHL:
        if (!kb || y < 0 || y > 40)
            return kb ? data() : stuck(R, b.n);
        return num(oklc_num_scale(&R->P, a.n, 1ll << y, 1));
    default:
        if (!ka)
            return stuck(R, a.n);
        if (!kb)
            return stuck(R, b.n);
        r = e->op == X_BITAND ? (x & y) : e->op == X_BITOR ? (x | y) : (x ^ y);
        return konst(r);
    }
}

static Val compare(Run *R, ExprOp op, Val a, Val b)
{
    if (a.kind != V_NUM || b.kind != V_NUM)
        return a.kind == V_STUCK || b.kind == V_STUCK ? (Val){V_STUCK, {NULL, 0}} : data();
    Val s = sign(R, num(oklc_num_sub(&R->P, a.n, b.n)));
    if (s.kind != V_NUM)
        return s;
    int64_t d = s.n.k;
    bool t = op == X_LT ? d < 0 : op == X_LE ? d <= 0 : op == X_GT ? d > 0
           : op == X_GE ? d >= 0 : op == X_EQ ? d == 0 : d != 0;
    return konst(t);
}

/* 1 or 0; else data or stuck */
static Val truth(Run *R, Val v)
{
    Val s = sign(R, v);
    return s.kind == V_NUM ? konst(s.n.k != 0) : s;
}

static Val eval(Run *R, const Expr *e)
{
    switch (e->op) {
    case X_NUM: return konst(e->value);
    case X_NAME: return name(R, e);
    case X_NEG: {
        Val a = eval(R, e->a);
        return a.kind == V_NUM ? num(oklc_num_scale(&R->P, a.n, -1, 1)) : a;
    }
    case X_NOT: {
        Val a = truth(R, eval(R, e->a));
        return a.kind == V_NUM ? konst(!a.n.k) : a;
    }
    case X_LT: case X_LE: case X_GT: case X_GE: case X_EQ: case X_NE:
        return compare(R, e->op, eval(R, e->a), eval(R, e->b));
    case X_AND: case X_OR: {
        Val a = truth(R, eval(R, e->a));
        if (a.kind != V_NUM || a.n.k == (e->op == X_OR))
            return a;
        return truth(R, eval(R, e->b));
    }
    case X_COND: {
        Val c = truth(R, eval(R, e->a));
        return c.kind != V_NUM ? c : eval(R, c.n.k ? e->b : e->c);
    }
    case X_MIN: case X_MAX: {
        Val a = eval(R, e->a), b = eval(R, e->b);
        Val lt = compare(R, X_LT, a, b);
        if (lt.kind != V_NUM)
            return lt;
        return lt.n.k == (e->op == X_MIN) ? a : b;
    }
    case X_ADD: case X_SUB: case X_MUL: case X_DIV: case X_MOD: case X_SHL: case X_SHR:
    case X_BITAND: case X_BITOR: case X_XOR:
        return arith(R, e, eval(R, e->a), eval(R, e->b));
    default:
        return data();
    }
}

/* The tree of range r, read once: a loop runs its statements many times. */
static const Expr *tree(Run *R, Range r)
{
    if (2 * (R->nparsed + 1) > R->cap) {
        size_t cap = R->cap ? 2 * R->cap : 256;
        struct Parsed *t = oklc_arena_alloc(&R->c->arena, cap * sizeof *t);
        memset(t, 0, cap * sizeof *t);
        for (size_t i = 0; i < R->cap; i++)
            for (size_t h = R->parsed[i].r.begin * 2654435761u % cap; R->parsed[i].e;
                 h = (h + 1) % cap)
                if (!t[h].e) {
                    t[h] = R->parsed[i];
                    break;
                }
        R->parsed = t, R->cap = cap;
    }
    size_t h = r.begin * 2654435761u % R->cap;
    for (; R->parsed[h].e; h = (h + 1) % R->cap)
        if (R->parsed[h].r.begin == r.begin && R->parsed[h].r.end == r.end)
            return R->parsed[h].e;
    R->parsed[h] = (struct Parsed){r, oklc_expr_parse(R->c, r)};
    R->nparsed++;
    return R->parsed[h].e;
}

static Val eval_range(Run *R, Range r)
{
    return eval(R, tree(R, r));
}

/* ---- counts ----------------------------------------------------------------------------------- */

static void counts_add(Run *R, Counts *a, const Counts *b)
{
    for (int i = 0; i < NCAT; i++)
        a->n[i] = oklc_num_add(&R->P, a->n[i], b->n[i]);
}

static void bump(Run *R, Counts *c, Cat cat, int64_t by)
{
    c->n[cat] = oklc_num_add(&R->P, c->n[cat], (Num){NULL, by});
}

static Cat arith_cat(const Op *op)
{
    int p = 0;
    while (p < NPREC - 1 && prec_letter[p] != op->precision)
        p++;
    return (Cat)(p * NARITH + (op->kind - OP_ADD));
}

static const char *cond_text(Run *R, const Expr *e, bool neg);
static void dom_fail(Run *R);
static void dom_flush(Run *R, Counts *c);
static void dom_push(Run *R, const char *con);
static bool foot_readable(Run *R, const char *con);

/* Is model op i evaluated, as the ?:, && and || around it decide? In a
 * nest counted by isl, *when gets the constraint under which it is where
 * that depends on the counters (NULL: always). */
static bool evaluated(Run *R, size_t i, const char **when)
{
    const OpInfo *in = &R->info[i];
    for (size_t g = 0; g < in->nguards; g++) {
        const Op *c = &R->m->ops[in->guards[g]];
        uint64_t stuck = R->stuck;
        Val v = truth(R, eval_range(R, c->a));
        bool in_b = oklc_in_range(c->b, R->m->ops[i].range.begin);
        if (v.kind == V_STUCK && R->dom) {
            R->stuck = stuck;
            bool neg = c->kind == OP_COND ? !in_b : c->kind == OP_OR;
            const char *t = cond_text(R, tree(R, c->a), neg);
            if (!t) {
                dom_fail(R);
                return false;
            }
            *when = *when ? oklc_arena_printf(&R->c->arena, "(%s) and (%s)", *when, t) : t;
            continue;
        }
        if (v.kind == V_STUCK)
            return false;
        if (v.kind == V_DATA) {
            at_most(R, "an operand evaluated or not as data decide", c->range.begin);
            if (R->foot)      /* it may not be: not in the footprint */
                return false;
            continue;
        }
        bool taken = c->kind == OP_COND ? (v.n.k != 0) == in_b
                     : c->kind == OP_AND ? v.n.k != 0 : v.n.k == 0;
        if (!taken)
            return false;
    }
    return true;
}

/* Model op i, once. */
static void foot_access(Run *R, size_t i);
static isl_ctx *isl_of(Run *R);

static void count_op(Run *R, size_t i, Counts *c)
{
    const Op *op = &R->m->ops[i];
    const OpMem *in = &R->mem[i];
    if (op->kind == OP_CALL) {
        at_most(R, "a call of the file's function (its operations are not counted)",
                op->range.begin);
    } else if (op->kind <= OP_SPECIAL) {
        bump(R, c, arith_cat(op), 1);
    } else if (op->kind == OP_ELEMENT && in->atomic) {
        bump(R, c, in->shared ? C_SATOMIC : C_GATOMIC, 1);
        if (R->foot && !in->shared)
            foot_access(R, i);
    } else if (op->kind == OP_ELEMENT && in->use != MEM_NONE) {
        if (R->foot && !in->shared)
            foot_access(R, i);
        int64_t bytes = op->bytes > 0 ? op->bytes : 0;
        if (in->use != MEM_STORE) {
            bump(R, c, in->shared ? C_SLOAD : C_GLOAD, 1);
            bump(R, c, in->shared ? C_SLOAD_BYTES : C_GLOAD_BYTES, bytes);
        }
        if (in->use != MEM_LOAD) {
            bump(R, c, in->shared ? C_SSTORE : C_GSTORE, 1);
            bump(R, c, in->shared ? C_SSTORE_BYTES : C_GSTORE_BYTES, bytes);
        }
    }
}

/* The operations in range r, once. */
static void count_ops(Run *R, Range r, Counts *c)
{
    const Model *m = R->m;
    for (size_t i = oklc_first_op(m, r.begin); i < m->nops && m->ops[i].range.begin < r.end; i++) {
        const char *when = NULL;
        if (R->mem[i].constant || !evaluated(R, i, &when))
            continue;
        if (!when) {
            count_op(R, i, c);
            continue;
        }
        int mark = R->dom->ncons;   /* counted where its operand is evaluated */
        dom_flush(R, c);
        dom_push(R, when);
        count_op(R, i, c);
        dom_flush(R, c);
        R->dom->ncons = mark;
    }
}

/* ---- statements -------------------------------------------------------------------------------- */

static void stmt(Run *R, const Stmt *st, Counts *c);
static void dom_branch(Run *R, const Stmt *st, Counts *c);
static bool dom_fork(Run *R, int var, const Expr *e);

static void set_var(Run *R, int i, Val v)
{
    if (i >= 0)
        R->val[i] = v.kind == V_NUM ? v : data();
}

/* x = v, x op= v, ++x of an integer variable: its new value. */
static void assign(Run *R, Range r)
{
    const Expr *e = tree(R, r);
    if ((e->op != X_ASSIGN && e->op != X_INC && e->op != X_DEC) || e->a->op != X_NAME)
        return;
    int i = var_at(R, e->a->off);
    if (i < 0 || !R->vars.data[i]->is_int)
        return;
    Val now = R->val[i], by;
    if (e->op == X_INC || e->op == X_DEC) {
        Expr one = {.op = e->op == X_INC ? X_ADD : X_SUB};
        by = arith(R, &one, now, konst(1));
    } else if (e->update == X_NUM) {
        by = eval(R, e->b);
    } else {
        Expr op = {.op = e->update};
        by = arith(R, &op, now, eval(R, e->b));
    }
    set_var(R, i, by);
}

static void decl(Run *R, const Stmt *st, Counts *c)
{
    count_ops(R, st->range, c);
    for (size_t i = 0; i < st->ndecls; i++) {
        const Var *v = st->decls[i];
        int at = var_index(R, v);
        bool known = v->is_int && v->init.end && !v->type.array && !v->type.pointer;
        uint64_t stuck = R->stuck;
        Val x = known ? eval_range(R, v->init) : data();
        if (x.kind == V_STUCK && R->dom && dom_fork(R, at, tree(R, v->init)))
            R->stuck = stuck;
        set_var(R, at, x);
    }
}

static void branch(Run *R, const Stmt *st, Counts *c)
{
    count_ops(R, st->head, c);
    uint64_t stuck = R->stuck;
    Val v = truth(R, eval_range(R, st->head));
    if (v.kind == V_STUCK && R->dom) {
        R->stuck = stuck;
        dom_branch(R, st, c);
        return;
    }
    if (v.kind == V_STUCK)
        return;
    const Stmt *then = st->nkids ? st->kids[0] : NULL, *other = st->nkids > 1 ? st->kids[1] : NULL;
    if (v.kind == V_NUM) {
        const Stmt *go = v.n.k ? then : other;
        if (go)
            stmt(R, go, c);
        return;
    }
    /* on data: both, as if each were taken (at most), a jump in either not
     * taken; for the footprint neither is sure, nor what follows a jump */
    at_most(R, "a branch on data", st->head.begin);
    if (R->foot)
        R->foot->unsure++;
    for (int i = 0; i < 2; i++) {
        const Stmt *s = i ? other : then;
        if (s) {
            stmt(R, s, c);
            if (R->foot && R->jump)
                R->foot->after_jump = true;
            R->jump = 0;
        }
    }
    if (R->foot)
        R->foot->unsure--;
}

/* ---- loops ---------------------------------------------------------------------------------- */

/* A loop as the run sees it: iterator = start + step * m for m in [0, trips). */
typedef struct Walked {
    const Stmt *st;
    const Loop *l;            /* its header read (l->analyzed), else NULL */
    int         iter;         /* its variable */
    Val         start, step, trips;
    bool        inner, blocks;    /* @inner; the innermost @outer (an iteration: a block) */
    int64_t     threads;      /* a block's threads (blocks), -1 if not known */
} Walked;

static const Stmt *body_of(const Stmt *st)
{
    return st->nkids ? st->kids[st->nkids - 1] : NULL;
}

/* Runs the body once with the iterator at v. */
static void iteration(Run *R, const Walked *s, Val v, Counts *c)
{
    set_var(R, s->iter, v);
    if (s->blocks) {
        bump(R, c, C_BLOCK, 1);
        if (s->threads >= 0)
            bump(R, c, C_THREAD, s->threads);
    }
    const Stmt *b = body_of(s->st);
    if (b)
        stmt(R, b, c);
    if (R->jump == ST_CONTINUE || (R->jump == ST_RETURN && s->inner))
        R->jump = 0;          /* a return in an @inner loop ends the thread's iteration */
}

static bool seen_enumerating(Run *R, const Stmt *st)
{
    for (size_t i = 0; i < R->enum_seen.len; i++)
        if (R->enum_seen.data[i] == st)
            return true;
    return false;
}

/* After a loop counted whole: a variable that holds a value of its
 * counter (set in its body) holds what the last iteration left, not
 * known here; with `back`, one whose value lies in memory taken back. */
static void forget(Run *R, int var, const PolyMark *back)
{
    for (size_t i = 0; i < R->vars.len; i++)
        if (R->val[i].kind == V_NUM && R->val[i].n.p &&
            (oklc_num_uses(R->val[i].n, var) ||
             (back && oklc_poly_after(&R->P, *back, R->val[i].n.p))))
            R->val[i] = data();
}

static bool all_numbers(const Counts *c)
{
    for (int k = 0; k < NCAT; k++)
        if (c->n[k].p)
            return false;
    return true;
}

/* The loop counted whole; false when its body needs the iterator's value. */
static bool whole(Run *R, const Walked *s, Counts *c)
{
    if (R->depth >= MAX_DEPTH || seen_enumerating(R, s->st) || s->trips.kind != V_NUM ||
        s->start.kind != V_NUM || s->step.kind != V_NUM)
        return false;
    size_t nv = R->vars.len;
    if (!R->saved[R->depth])     /* one snapshot of the variables per depth, reused */
        R->saved[R->depth] = oklc_arena_alloc(&R->c->arena, (nv ? nv : 1) * sizeof(Val));
    Val *saved = R->saved[R->depth];
    memcpy(saved, R->val, nv * sizeof *saved);
    PolyMark mark = oklc_poly_mark(&R->P);
    int var = VAR_COUNTER + R->depth;
    Num m = oklc_num_var(&R->P, var);
    Val it = num(oklc_num_add(&R->P, s->start.n, oklc_num_mul(&R->P, s->step.n, m)));
    uint64_t stuck = R->stuck;
    bool upper = R->upper;
    R->stuck = 0;
    Counts body = {0};
    R->depth++;
    iteration(R, s, it, &body);
    R->depth--;
    uint64_t mine = 1ull << (var - VAR_COUNTER);
    bool need = R->stuck & mine, jumped = R->jump == ST_BREAK || R->jump == ST_GOTO;
    for (size_t i = 0; i < R->atoms.len && !need; i++)
        for (int k = 0; k < NCAT && !need; k++)
            need = (R->atoms.data[i].mask & mine) && oklc_num_uses(body.n[k], VAR_ATOM + (int)i);
    if (need || jumped) {     /* as before the try: the loop runs one by one */
        memcpy(R->val, saved, nv * sizeof *saved);
        if (R->numbers && all_numbers(c))
            oklc_poly_release(&R->P, mark);
        R->stuck = stuck;
        R->upper = upper;
        R->jump = 0;
        vec_push(&R->c->arena, &R->enum_seen, s->st);
        return false;
    }
    R->stuck |= stuck;
    for (int k = 0; k < NCAT; k++) {
        if (k == C_BARRIER && s->inner)   /* a block's barriers: its first thread's */
            body.n[k] = oklc_num_subst(&R->P, body.n[k], var, (Num){NULL, 0});
        else
            body.n[k] = oklc_num_sum(&R->P, body.n[k], var, s->trips.n);
        c->n[k] = oklc_num_add(&R->P, c->n[k], body.n[k]);
    }
    /* with every parameter a number, what the try made is taken back (a
     * loop run one by one around it tries again each time) */
    bool back = R->numbers && all_numbers(c);
    forget(R, var, back ? &mark : NULL);
    if (back)
        oklc_poly_release(&R->P, mark);
    return true;
}

/* The loop run iteration by iteration: its count must be a number. */
static void one_by_one(Run *R, const Walked *s, Counts *c)
{
    int64_t n;
    if (s->trips.kind == V_DATA || s->start.kind == V_DATA || s->step.kind == V_DATA) {
        fail(R, s->st->range.begin, "a loop whose count depends on data");
        return;
    }
    if (s->trips.kind != V_NUM || !oklc_num_const(s->trips.n, &n)) {
        if (s->trips.kind == V_NUM)
            stuck(R, s->trips.n);
        return;
    }
    if ((R->budget -= n) < 0) {
        fail(R, s->st->range.begin, "too many iterations to count one by one (give smaller "
                                    "--param values)");
        return;
    }
    bool first = R->first;
    for (int64_t i = 0; i < n && !R->fail && !R->stuck; i++) {
        Val it = num(oklc_num_add(&R->P, s->start.n, oklc_num_scale(&R->P, s->step.n, i, 1)));
        R->first = first && (!s->inner || i == 0);
        iteration(R, s, it, c);
        if (R->jump == ST_BREAK) {
            R->jump = 0;
            break;
        }
        if (R->jump)
            break;
    }
    R->first = first;
}

/* ceil(span / step), at least 0 when a number */
static Val trips(Run *R, Val span, Val step)
{
    int64_t a, s;
    if (span.kind != V_NUM || step.kind != V_NUM)
        return span.kind == V_NUM ? step : span;
    if (!oklc_num_const(step.n, &s))
        return stuck(R, step.n);
    if (s < 0)
        s = -s;
    if (!s)
        return data();
    if (oklc_num_const(span.n, &a))
        return konst(a <= 0 ? 0 : (a + s - 1) / s);
    if (s == 1)
        return span;          /* formulas: where the bound is at least the start */
    Expr div = {.op = X_DIV};
    return arith(R, &div, num(oklc_num_add(&R->P, span.n, (Num){NULL, s - 1})), konst(s));
}

/* The step of a header: ++i, i += s, i -= s (else data). */
static Val step_of(Run *R, Range step)
{
    const Expr *e = tree(R, step);
    if (e->op == X_INC || e->op == X_DEC)
        return konst(e->op == X_INC ? 1 : -1);
    if (e->op == X_ASSIGN && (e->update == X_ADD || e->update == X_SUB)) {
        Val b = eval(R, e->b);
        return e->update == X_ADD || b.kind != V_NUM ? b
                                                     : num(oklc_num_scale(&R->P, b.n, -1, 1));
    }
    return data();
}

/* A header of the form for (i = start; i cmp bound; i += step). */
static bool affine_header(Run *R, const Loop *l, Walked *s)
{
    if (!l || !l->analyzed || !l->start_at.end || !l->bound_at.end)
        return false;
    s->iter = var_at(R, l->iter_off);
    s->start = eval_range(R, l->start_at);
    s->step = step_of(R, l->step);
    Val bound = eval_range(R, l->bound_at);
    if (s->iter < 0 || s->step.kind == V_DATA)
        return false;
    if (bound.kind != V_NUM || s->start.kind != V_NUM) {
        s->trips = bound.kind != V_NUM ? bound : s->start;
        return true;
    }
    bool down = l->cmp == CMP_GT || l->cmp == CMP_GE;
    Num span = down ? oklc_num_sub(&R->P, s->start.n, bound.n)
                    : oklc_num_sub(&R->P, bound.n, s->start.n);
    if (l->cmp == CMP_LE || l->cmp == CMP_GE)
        span = oklc_num_add(&R->P, span, (Num){NULL, 1});
    s->trips = trips(R, num(span), s->step);
    return true;
}

/* ---- guarded nests, counted by isl ---------------------------------------------------------------
 *
 * Where a loop's body needs its iterator (a guard `if (i < N)` with i
 * made of the block and the thread) and the parameters are not given, the
 * nest runs once more with every loop's counter a variable of a set: each
 * affine condition on them splits the run (the branch taken adds it, the
 * other its negation), and what a part of the body counts is summed over
 * the points of its set (sum.c): a formula piecewise in the parameters,
 * like loopy's. Anything not affine gives up (the count then needs
 * --param, as before). */

static void dom_fail(Run *R)
{
    R->dom->failed = true;
}

/* "prefix[m0, m1, ..." of n counters into a new buffer (the caller closes it) */
static Buf counters(Run *R, const char *prefix, int n)
{
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_buf_printf(&b, "%s[", prefix);
    for (int d = 0; d < n; d++)
        oklc_buf_printf(&b, "%sm%d", d ? ", " : "", d);
    return b;
}

/* w summed over the points of the constraints in force (of thread 0 of
 * each @inner level too: a block's barriers), or NULL. */
static isl_pw_qpolynomial *dom_sum(Run *R, Num w, bool thread0)
{
    Dom *D = R->dom;
    Buf b = counters(R, oklc_arena_printf(&R->c->arena, "%s -> { ", D->params), R->depth);
    oklc_buf_printf(&b, "] -> (");
    isl_text(R, w, &b);
    oklc_buf_printf(&b, ") : 0 = 0");
    for (int i = 0; i < D->ncons; i++)
        oklc_buf_printf(&b, " and (%s)", D->cons[i]);
    for (int d = 0; thread0 && d < R->depth; d++)
        if (D->inner >> d & 1)
            oklc_buf_printf(&b, " and m%d = 0", d);
    oklc_buf_printf(&b, " }");
    uint64_t h = 1469598103934665603ull;       /* a sum seen before: its result */
    for (const char *t = b.data; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    for (size_t i = 0; i < R->sums.len; i++)
        if (R->sums.data[i].hash == h && !strcmp(R->sums.data[i].key, b.data))
            return isl_pw_qpolynomial_copy(R->sums.data[i].sum);
    isl_pw_qpolynomial *f = isl_pw_qpolynomial_read_from_str(R->isl, b.data);
    f = f ? oklc_sum_all(f) : NULL;
    if (f) {
        struct Summed x = {h, b.data, isl_pw_qpolynomial_copy(f)};
        vec_push(&R->c->arena, &R->sums, x);
    }
    return f;
}

/* What c counted, summed over the points of the constraints in force
 * (the number of points counted once for every constant count). */
static void dom_flush(Run *R, Counts *c)
{
    Dom *D = R->dom;
    isl_pw_qpolynomial *points = NULL;
    if (R->foot) {            /* the footprint's run: no counts */
        memset(c, 0, sizeof *c);
        return;
    }
    for (int k = 0; k < NCAT && !D->failed; k++) {
        int64_t v;
        if (!c->n[k].p && !c->n[k].k)
            continue;
        isl_pw_qpolynomial *f;
        if (k != C_BARRIER && oklc_num_const(c->n[k], &v)) {
            if (!points)
                points = dom_sum(R, (Num){NULL, 1}, false);
            f = points ? isl_pw_qpolynomial_scale_val(isl_pw_qpolynomial_copy(points),
                                                      isl_val_int_from_si(R->isl, v))
                       : NULL;
        } else {
            f = dom_sum(R, c->n[k], k == C_BARRIER);
        }
        if (!f)
            dom_fail(R);
        else
            D->sum[k] = D->sum[k] ? isl_pw_qpolynomial_add(D->sum[k], f) : f;
    }
    isl_pw_qpolynomial_free(points);
    memset(c, 0, sizeof *c);
}

static void dom_push(Run *R, const char *con)
{
    Dom *D = R->dom;
    if (D->ncons == MAX_CONS || !con || (R->foot && !foot_readable(R, con)))
        dom_fail(R);
    else
        D->cons[D->ncons++] = con;
}

/* The condition e (its negation when neg) as an isl constraint, or NULL.
 * A part on data holds either way (DATA_HOLDS): each way is counted where it
 * may be taken, and the counts are upper bounds. */
static const char *cond_text(Run *R, const Expr *e, bool neg)
{
    Arena *a = &R->c->arena;
    switch (e->op) {
    case X_NOT:
        return cond_text(R, e->a, !neg);
    case X_AND: case X_OR: {
        const char *x = cond_text(R, e->a, neg), *y = x ? cond_text(R, e->b, neg) : NULL;
        bool both = (e->op == X_AND) != neg;
        return y ? oklc_arena_printf(a, "(%s) %s (%s)", x, both ? "and" : "or", y) : NULL;
    }
    default:
        break;
    }
    bool cmp = e->op >= X_LT && e->op <= X_NE;
    uint64_t stuck = R->stuck;
    Val x = eval(R, cmp ? e->a : e), y = cmp ? eval(R, e->b) : konst(0);
    bool was = R->stuck == stuck;
    R->stuck = stuck;
    if (was && (x.kind == V_DATA || y.kind == V_DATA)) {
        at_most(R, "a branch on data", R->at);
        return DATA_HOLDS;
    }
    if (!was || x.kind != V_NUM || y.kind != V_NUM)
        return NULL;
    ExprOp op = cmp ? e->op : X_NE;
    if (neg)
        op = op == X_LT ? X_GE : op == X_GE ? X_LT : op == X_LE ? X_GT : op == X_GT ? X_LE
           : op == X_EQ ? X_NE : X_EQ;
    Buf d;                    /* x - y */
    oklc_buf_init(&d, a);
    oklc_buf_printf(&d, "(");
    isl_text(R, x.n, &d);
    oklc_buf_printf(&d, ") - (");
    isl_text(R, y.n, &d);
    oklc_buf_printf(&d, ")");
    static const char *const rel[] = {[X_LT] = "<", [X_LE] = "<=", [X_GT] = ">", [X_GE] = ">=",
                                      [X_EQ] = "="};
    return op == X_NE ? oklc_arena_printf(a, "%s < 0 or %s > 0", d.data, d.data)
                      : oklc_arena_printf(a, "%s %s 0", d.data, rel[op]);
}

static bool same_val(Run *R, Val a, Val b)
{
    if (a.kind != V_NUM || b.kind != V_NUM)
        return a.kind == b.kind;
    int64_t k;
    return oklc_num_const(oklc_num_sub(&R->P, a.n, b.n), &k) && !k;
}

/* One way of a split: under con, the statement go, or the statements of
 * list from `from` on with var set to value. */
typedef struct Way {
    const char *con;
    const Stmt *go, *list;
    size_t      from;
    int         var;
    Val         value;
} Way;

static void run_kids(Run *R, const Stmt *st, size_t from, Counts *c);

/* The way taken: its jump, if any. */
static int dom_way(Run *R, const Way *w, Counts *c)
{
    Dom *D = R->dom;
    int mark = D->ncons;
    if (--D->ways < 0) {
        dom_fail(R);
        return 0;
    }
    dom_push(R, w->con);
    if (w->var >= 0)
        set_var(R, w->var, w->value);
    if (w->go)
        stmt(R, w->go, c);
    if (w->list)
        run_kids(R, w->list, w->from, c);
    dom_flush(R, c);
    if (D->ncons > mark + 1)  /* a jump deeper in it: the rest would need both */
        dom_fail(R);
    D->ncons = mark;
    int j = R->jump;
    R->jump = 0;
    return j;
}

/* Both ways, each under its constraint; after them the values both leave
 * (or the one way's that did not jump), the rest of the iteration under
 * the constraint of the way that did not jump. */
static void dom_split(Run *R, const Way w[2], Counts *c)
{
    dom_flush(R, c);
    size_t nv = R->vars.len;
    Val *before = oklc_arena_alloc(&R->c->arena, (nv ? nv : 1) * sizeof(Val));
    Val *after = oklc_arena_alloc(&R->c->arena, (nv ? nv : 1) * sizeof(Val));
    memcpy(before, R->val, nv * sizeof(Val));
    int j0 = dom_way(R, &w[0], c);
    memcpy(after, R->val, nv * sizeof(Val));
    memcpy(R->val, before, nv * sizeof(Val));
    int j1 = dom_way(R, &w[1], c);
    if (j1 && !j0)
        memcpy(R->val, after, nv * sizeof(Val));
    for (size_t i = 0; i < nv && !j0 == !j1; i++)
        if (!same_val(R, after[i], R->val[i]))
            R->val[i] = data();
    bool ends = R->dom->inner != 0;   /* a return ends a thread's iteration */
    for (int i = 0; i < 2; i++) {
        int j = i ? j1 : j0;
        if (j && j != ST_CONTINUE && !(j == ST_RETURN && ends))
            dom_fail(R);
    }
    if (j0 && j1)
        R->jump = j0 == j1 ? j0 : ST_RETURN;
    else if (j0 || j1)
        dom_push(R, w[j0 ? 1 : 0].con);
}

/* if (cond) on the counters */
static void dom_branch(Run *R, const Stmt *st, Counts *c)
{
    const Expr *e = tree(R, st->head);
    Way w[2] = {{cond_text(R, e, false), st->nkids ? st->kids[0] : NULL, NULL, 0, -1, {0}},
                {cond_text(R, e, true), st->nkids > 1 ? st->kids[1] : NULL, NULL, 0, -1, {0}}};
    if (!w[0].con || !w[1].con)
        dom_fail(R);
    else
        dom_split(R, w, c);
}

/* A variable declared as c ? a : b, min(a, b) or max(a, b) with c on the
 * counters: the statements after it run both ways (dom_split). */
static bool dom_fork(Run *R, int var, const Expr *e)
{
    Dom *D = R->dom;
    Expr cmp = {.op = e->op == X_MIN ? X_LT : X_GT, .a = e->a, .b = e->b};
    const Expr *cond = e->op == X_COND ? e->a : &cmp;
    if ((e->op != X_COND && e->op != X_MIN && e->op != X_MAX) || D->fork.var >= 0 || var < 0)
        return false;
    uint64_t stuck = R->stuck;
    Val a = eval(R, e->op == X_COND ? e->b : e->a), b = eval(R, e->op == X_COND ? e->c : e->b);
    const char *yes = cond_text(R, cond, false), *no = cond_text(R, cond, true);
    if (a.kind != V_NUM || b.kind != V_NUM || !yes || !no || R->stuck != stuck)
        return false;
    D->fork.var = var;
    D->fork.con[0] = yes, D->fork.con[1] = no;
    D->fork.value[0] = a, D->fork.value[1] = b;
    return true;
}

static void run_kids(Run *R, const Stmt *st, size_t from, Counts *c)
{
    for (size_t i = from; i < st->nkids && !R->jump && !R->fail && !R->stuck; i++) {
        stmt(R, st->kids[i], c);
        Dom *D = R->dom;
        if (D && D->fork.var >= 0) {
            Way w[2];
            for (int k = 0; k < 2; k++)
                w[k] = (Way){D->fork.con[k], NULL, st, i + 1, D->fork.var, D->fork.value[k]};
            D->fork.var = -1;
            dom_split(R, w, c);
            return;
        }
    }
}

/* A loop of the nest: its counter a new dimension; a @tile's (size > 0)
 * two: the tile (a block, where tiles are blocks) and the place in it, the
 * iterator start + step * (size * tile + place) while under the count. */
static void dom_loop(Run *R, const Walked *s, int64_t size, bool tiles_blocks, Counts *c)
{
    Dom *D = R->dom;
    int q = R->depth, dims = size ? 2 : 1, mark = D->ncons;
    if (q + dims > MAX_DEPTH || s->trips.kind != V_NUM || s->start.kind != V_NUM ||
        s->step.kind != V_NUM) {
        dom_fail(R);
        return;
    }
    dom_flush(R, c);
    Buf n;
    oklc_buf_init(&n, &R->c->arena);
    isl_text(R, s->trips.n, &n);
    Arena *a = &R->c->arena;
    Num m = oklc_num_var(&R->P, VAR_COUNTER + q);
    if (size) {
        dom_push(R, oklc_arena_printf(a, "0 <= m%d and %lld*m%d < %s", q, (long long)size, q,
                                      n.data));
        R->depth++;
        if (tiles_blocks) {
            bump(R, c, C_BLOCK, 1);
            if (s->threads >= 0)
                bump(R, c, C_THREAD, s->threads);
        }
        dom_flush(R, c);
        dom_push(R, oklc_arena_printf(a, "0 <= m%d < %lld and %lld*m%d + m%d < %s", q + 1,
                                      (long long)size, (long long)size, q, q + 1, n.data));
        m = oklc_num_add(&R->P, oklc_num_scale(&R->P, m, size, 1),
                         oklc_num_var(&R->P, VAR_COUNTER + q + 1));
    } else {
        dom_push(R, oklc_arena_printf(a, "0 <= m%d and m%d < %s", q, q, n.data));
    }
    uint64_t inner = D->inner;
    if (s->inner)
        D->inner |= 1ull << (q + dims - 1);
    R->depth++;
    Walked w = *s;
    w.blocks &= !size;        /* a tile's blocks counted with the tile */
    iteration(R, &w, num(oklc_num_add(&R->P, s->start.n, oklc_num_mul(&R->P, s->step.n, m))), c);
    dom_flush(R, c);
    R->depth = q;
    if (R->jump)
        dom_fail(R);
    R->jump = 0;
    D->ncons = mark;
    D->inner = inner;
    for (int d = q; d < q + dims; d++)
        forget(R, VAR_COUNTER + d, NULL);
}

/* "[N, M]": the parameters the formulas may hold; NULL when a name is one
 * isl reads otherwise. */
static const char *isl_params(Run *R)
{
    static const char *const words[] = {"and", "or", "not", "exists", "floor", "ceil", "mod",
                                        "min", "max", "infty", "NaN", "rat", "true", "false",
                                        "implies", "xor", "domain", "range"};
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_buf_printf(&b, "[");
    int n = 0;
    for (size_t i = 0; i < R->vars.len && i < VAR_COUNTER; i++) {
        const Var *v = R->vars.data[i];
        if (R->val[i].kind != V_NUM || v->kind != VAR_PARAM || !R->val[i].n.p)
            continue;
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (!strcmp(v->name, words[w]))
                return NULL;
        if (v->name[0] == 'm' && v->name[1] >= '0' && v->name[1] <= '9')
            return NULL;
        oklc_buf_printf(&b, "%s%s", n++ ? ", " : "", v->name);
    }
    oklc_buf_printf(&b, "]");
    return b.data;
}

/* What a count at the top may take back: the variables, what was stuck and
 * what made the counts upper bounds. */
typedef struct Snap {
    Val        *val;
    uint64_t    stuck;
    uint32_t    stuck_at, upper_at;
    bool        upper;
    const char *upper_why;
} Snap;

static Snap snap(Run *R)
{
    size_t nv = R->vars.len;
    Snap x = {oklc_arena_alloc(&R->c->arena, (nv ? nv : 1) * sizeof(Val)), R->stuck,
              R->stuck_at, R->upper_at, R->upper, R->upper_why};
    memcpy(x.val, R->val, nv * sizeof(Val));
    return x;
}

static void snap_back(Run *R, const Snap *x)
{
    memcpy(R->val, x->val, R->vars.len * sizeof(Val));
    R->stuck = x->stuck, R->stuck_at = x->stuck_at;
    R->upper = x->upper, R->upper_why = x->upper_why, R->upper_at = x->upper_at;
    R->fail = NULL, R->jump = 0;
}

/* The value of sum f, which has no parameters (every one given): into
 * count k of c; false when it is not an integer. One beyond 2^60 fails the
 * count (the counts add up in 64 bits). */
static bool sum_value(Run *R, isl_pw_qpolynomial *f, Counts *c, int k, uint32_t at_off)
{
    isl_point *at = isl_point_zero(isl_pw_qpolynomial_get_domain_space(f));
    isl_val *v = isl_pw_qpolynomial_eval(isl_pw_qpolynomial_copy(f), at);
    bool ok = v && isl_val_is_int(v);
    const int64_t most = (int64_t)1 << 60;
    if (ok && (isl_val_cmp_si(v, most) > 0 || isl_val_cmp_si(v, -most) < 0))
        fail(R, at_off, "a count beyond 2^60 (give smaller --param values)");
    else if (ok)
        bump(R, c, (Cat)k, isl_val_get_num_si(v));
    isl_val_free(v);
    return ok;
}

static isl_ctx *isl_of(Run *R)
{
    if (!R->isl) {
        R->isl = isl_ctx_alloc();
        if (R->isl)
            isl_options_set_on_error(R->isl, ISL_ON_ERROR_CONTINUE);
    }
    return R->isl;
}

/* A try by isl with the parameters given, in iterations run one by one
 * (its sums take about as long as 10^4 of them): a loop run one by one
 * tries again in each iteration, with numbers as large as the user's
 * grid. */
#define ISL_COST 10000

/* The loop at the top (a @tile's when size > 0) counted by isl: true
 * when it was; else nothing changed. With every parameter given (c) the
 * sums are numbers, added to c: a guarded nest of a large grid is not run
 * one iteration at a time. */
static bool by_isl(Run *R, const Walked *s, int64_t size, bool tiles_blocks, Counts *into)
{
    Dom D = {.params = isl_params(R), .fork.var = -1, .ways = 4096};
    if (!D.params || (R->numbers && (R->budget -= ISL_COST) < 0) || !isl_of(R))
        return false;
    Snap before = snap(R);
    R->dom = &D;
    Counts c = {0};
    dom_loop(R, s, size, tiles_blocks, &c);
    R->dom = NULL;
    bool ok = !D.failed && !R->fail && R->stuck == before.stuck;
    Counts got = {0};
    for (int k = 0; k < NCAT && ok && R->numbers && !R->fail; k++)
        ok = !D.sum[k] || sum_value(R, D.sum[k], &got, k, s->st->range.begin);
    if (R->fail) {                 /* counted, but too large: said */
        for (int k = 0; k < NCAT; k++)
            isl_pw_qpolynomial_free(D.sum[k]);
        return true;
    }
    if (ok && R->numbers)
        counts_add(R, into, &got);
    for (int k = 0; k < NCAT; k++) {
        if (ok && D.sum[k] && !R->numbers)
            R->pw[k] = R->pw[k] ? isl_pw_qpolynomial_add(R->pw[k], D.sum[k]) : D.sum[k];
        else
            isl_pw_qpolynomial_free(D.sum[k]);
    }
    if (!ok)
        snap_back(R, &before);
    return ok;
}

/* Counted whole into c, at the top without the parameters' values only
 * when that needed no value (else nothing changed and false). */
static bool whole_at_top(Run *R, const Walked *s, Counts *c, bool *top)
{
    *top = !R->depth;
    if (!*top)
        return whole(R, s, c);
    Snap before = snap(R);
    Counts part = {0};
    if (whole(R, s, &part) && R->stuck == before.stuck) {
        counts_add(R, c, &part);
        return true;
    }
    if (!R->fail)
        snap_back(R, &before);
    return false;
}

static void counted_loop(Run *R, Walked *s, Counts *c)
{
    bool top = !R->depth;
    if (R->dom)
        dom_loop(R, s, 0, false, c);
    else if (R->foot) {       /* the elements need each point's: never whole */
        if (!(top && by_isl(R, s, 0, false, c)))
            one_by_one(R, s, c);
    } else if (!whole_at_top(R, s, c, &top) && !R->fail && !(top && by_isl(R, s, 0, false, c)))
        one_by_one(R, s, c);
}

/* Does a loop run as written go round again (its condition a number)? */
static bool holds(Run *R, const Stmt *st, Range cond)
{
    Val go = truth(R, eval_range(R, cond));
    if (go.kind == V_DATA)
        fail(R, st->range.begin, "a loop whose count depends on data");
    return go.kind == V_NUM && go.n.k && !R->fail;
}

/* One round of a loop run as written; false when it ends the loop. */
static bool round_of(Run *R, const Stmt *st, Counts *c)
{
    if (--R->budget < 0) {
        fail(R, st->range.begin, "too many iterations to count one by one");
        return false;
    }
    stmt(R, body_of(st), c);
    if (R->jump == ST_BREAK) {
        R->jump = 0;
        return false;
    }
    if (R->jump && R->jump != ST_CONTINUE)
        return false;
    R->jump = 0;
    return true;
}

/* A for header of another form: run as written (init, cond, body, step). */
static void literal_loop(Run *R, const Stmt *st, const Loop *l, Counts *c)
{
    if (!l || !l->cond.end) {
        fail(R, st->range.begin, "a loop of a form the count does not follow");
        return;
    }
    for (size_t i = 0; i < R->k->nlocals; i++) {
        const Var *v = R->k->locals[i];
        if (oklc_in_range(l->init, v->name_off))
            set_var(R, var_index(R, v), v->is_int && v->init.end ? eval_range(R, v->init) : data());
    }
    assign(R, l->init);
    while (holds(R, st, l->cond) && round_of(R, st, c))
        assign(R, l->step);
}

/* while (cond) body; do body while (cond): run as written. */
static void while_loop(Run *R, const Stmt *st, Counts *c)
{
    for (bool check = st->kind == ST_WHILE;; check = true) {
        if (check) {
            count_ops(R, st->head, c);
            if (!holds(R, st, st->head))
                return;
        }
        if (!round_of(R, st, c))
            return;
    }
}

static bool innermost_outer(const Loop *l)
{
    if (l->kind != LOOP_OUTER)
        return false;
    for (size_t i = 0; i < l->nkids; i++)
        if (l->kids[i]->kind == LOOP_OUTER)
            return false;
    return true;
}

static int64_t block_threads(const Kernel *k, const Loop *l)
{
    const Loop *top = l;
    while (top->parent)
        top = top->parent;
    int64_t b[3];
    oklc_model_block(k, top, b);
    return b[0] < 0 || b[1] < 0 || b[2] < 0 ? -1 : b[0] * b[1] * b[2];
}

/* A @tile: the tiled loop (each level's iterations), its tiles the blocks
 * when the first level is the innermost @outer. */
static void tile_loop(Run *R, const Stmt *st, const Loop *in, Counts *c)
{
    const Loop *out = in->tile_other;
    Walked s = {st, in, -1, data(), data(), data(), in->kind == LOOP_INNER,
               innermost_outer(in), block_threads(R->k, in)};
    if (!affine_header(R, in, &s)) {
        fail(R, st->range.begin, "a @tile loop of a form the count does not follow");
        return;
    }
    int64_t size = out && out->tile_value > 0 ? out->tile_value : 0;
    bool tiles_blocks = out && innermost_outer(out) && !s.blocks;
    if (!size) {
        fail(R, st->range.begin, "a @tile whose size is not a number");
        return;
    }
    if (R->dom) {
        dom_loop(R, &s, size, tiles_blocks, c);
        return;
    }
    Counts body = {0};
    bool top = !R->depth;
    if (!R->foot && whole_at_top(R, &s, &body, &top)) {
        if (tiles_blocks) {
            Val t = trips(R, s.trips, konst(size));
            if (t.kind != V_NUM)
                return;
            body.n[C_BLOCK] = oklc_num_add(&R->P, body.n[C_BLOCK], t.n);
            if (s.threads >= 0)
                body.n[C_THREAD] = oklc_num_add(&R->P, body.n[C_THREAD],
                                                oklc_num_scale(&R->P, t.n, s.threads, 1));
            body.n[C_BARRIER] = oklc_num_mul(&R->P, body.n[C_BARRIER], t.n);
        }
        counts_add(R, c, &body);
        return;
    }
    if (!R->fail && top && by_isl(R, &s, size, tiles_blocks, c))
        return;
    /* tile by tile: each a block when it is one */
    int64_t n;
    if (R->fail || s.trips.kind != V_NUM || !oklc_num_const(s.trips.n, &n)) {
        if (!R->fail && s.trips.kind == V_NUM)
            stuck(R, s.trips.n);
        return;
    }
    Val start = s.start;
    for (int64_t t = 0; t * size < n && !R->fail && !R->stuck; t++) {
        Walked part = s;
        Num from = oklc_num_scale(&R->P, s.step.n, t * size, 1);
        part.start = num(oklc_num_add(&R->P, start.n, from));
        part.trips = konst(n - t * size < size ? n - t * size : size);
        if (tiles_blocks) {
            bump(R, c, C_BLOCK, 1);
            if (s.threads >= 0)
                bump(R, c, C_THREAD, s.threads);
        }
        one_by_one(R, &part, c);
    }
}

static void for_loop(Run *R, const Stmt *st, Counts *c)
{
    const Loop *l = st->loop;
    if (l && l->tile_part == 2) {
        tile_loop(R, st, l, c);
    } else if (l) {
        Walked s = {st, l, -1, data(), data(), data(), l->kind == LOOP_INNER, innermost_outer(l),
                   block_threads(R->k, l)};
        if (affine_header(R, l, &s))
            counted_loop(R, &s, c);
        else
            fail(R, st->range.begin, "an attributed loop of a form the count does not follow");
    } else {
        count_ops(R, st->head, c);
        Walked s = {st, st->plain, -1, data(), data(), data(), false, false, -1};
        if (affine_header(R, st->plain, &s) && !R->clobbered[s.iter])
            counted_loop(R, &s, c);
        else
            literal_loop(R, st, st->plain, c);
    }
    if (l && oklc_implicit_barrier(R->k, l) && R->first)
        bump(R, c, C_BARRIER, 1);
}

static void stmt(Run *R, const Stmt *st, Counts *c)
{
    if (!st || R->fail || R->stuck || R->jump)
        return;
    R->at = st->range.begin;
    switch (st->kind) {
    case ST_COMPOUND:
        run_kids(R, st, 0, c);
        break;
    case ST_DECL: decl(R, st, c); break;
    case ST_EXPR:
        count_ops(R, st->range, c);
        assign(R, st->range);
        break;
    case ST_IF: branch(R, st, c); break;
    case ST_FOR: for_loop(R, st, c); break;
    case ST_WHILE: case ST_DO:
        while_loop(R, st, c);
        break;
    case ST_SWITCH: case ST_GOTO:
        fail(R, st->range.begin, st->kind == ST_SWITCH ? "a switch" : "a goto");
        break;
    case ST_RETURN: case ST_BREAK: case ST_CONTINUE:
        count_ops(R, st->range, c);
        R->jump = st->kind;
        break;
    case ST_NULL:
        if (st->barrier && st->barrier->kind != BARRIER_WARP && R->first)
            bump(R, c, C_BARRIER, 1);
        break;
    default:                  /* a statement around others (#pragma unroll): theirs */
        if (!st->nkids)
            count_ops(R, st->range, c);
        run_kids(R, st, 0, c);
        break;
    }
}

/* ---- the footprint -------------------------------------------------------------------------------- */

static void foot_left(Run *R, uint32_t at, const char *why)
{
    if (!R->foot->left)
        R->foot->left = why, R->foot->left_at = at;
}

/* Does isl read constraint con (affine)? The footprint's run has no sums
 * to find out: a nest whose conditions are not affine runs one by one. */
static bool foot_readable(Run *R, const char *con)
{
    Buf b = counters(R, "{ ", R->depth + 2);
    oklc_buf_printf(&b, "] : %s }", con);
    isl_set *s = isl_of(R) ? isl_set_read_from_str(R->isl, b.data) : NULL;
    isl_set_free(s);
    return s != NULL;
}

/* Why the access being run may not run (NULL: it surely does). */
static const char *foot_unsure(Run *R)
{
    const Foot *F = R->foot;
    bool data = F->unsure || F->after_jump;
    for (int i = 0; R->dom && i < R->dom->ncons && !data; i++)
        data = strstr(R->dom->cons[i], DATA_HOLDS) != NULL;
    return data ? "an access under a condition on data" : NULL;
}

/* The subscripts of element use op (v[i], v[i][j]); 0 when it is of
 * another form (okl::at(v, i), a member's array). */
static int subscripts(Run *R, const Op *op, Range *subs, int most)
{
    size_t n = strlen(op->var->name);
    uint32_t after;
    if (strncmp(R->c->norm->text + op->range.begin, op->var->name, n))
        return 0;
    int k = oklc_subscripts(R->c, op->range.begin + (uint32_t)n, op->range.end, subs, most,
                            &after);
    return after == op->range.end ? k : 0;
}

/* "{ [m0, m1] -> A[s0, s1] : constraints }" of element use i at this
 * point of the run, or NULL (*why says why). */
static const char *access_text(Run *R, size_t i, const char **why)
{
    const Op *op = &R->m->ops[i];
    Range subs[8];
    int dims = op->var && op->var->type.array_dims > 0 ? op->var->type.array_dims : 1;
    int k = op->var && op->bytes > 0 ? subscripts(R, op, subs, 8) : 0;
    if (k != dims) {
        *why = "an element isl cannot name";
        return NULL;
    }
    Buf b = counters(R, "{ ", R->depth);
    oklc_buf_printf(&b, "] -> A[");
    for (int j = 0; j < k; j++) {
        uint64_t stuck = R->stuck;
        Val v = eval_range(R, subs[j]);
        R->stuck = stuck;
        if (v.kind != V_NUM) {
            *why = "a subscript on data";
            return NULL;
        }
        oklc_buf_printf(&b, j ? ", " : "");
        isl_text(R, v.n, &b);
    }
    oklc_buf_printf(&b, "] : 0 = 0");
    for (int j = 0; R->dom && j < R->dom->ncons; j++)
        oklc_buf_printf(&b, " and (%s)", R->dom->cons[j]);
    oklc_buf_printf(&b, " }");
    return b.data;
}

enum { FOOT_UNIONS = 4096 };  /* accesses recorded (a loop run one by one: each a point) */

/* Element use i, where it surely runs: its elements into the footprint. */
static void foot_access(Run *R, size_t i)
{
    Foot *F = R->foot;
    const Op *op = &R->m->ops[i];
    if (R->dom && R->dom->failed)    /* the nest runs again one by one */
        return;
    const char *why = foot_unsure(R);
    const char *text = why ? NULL : access_text(R, i, &why);
    isl_map *m = text && isl_of(R) ? isl_map_read_from_str(R->isl, text) : NULL;
    if (text && !m)
        why = "a subscript isl does not read (not affine)";
    if (!why && ++F->unions > FOOT_UNIONS) {    /* the rest left out: the run ends */
        why = "more accesses than are followed one by one";
        fail(R, op->range.begin, why);
    }
    if (why) {
        isl_map_free(m);
        foot_left(R, op->range.begin, why);
        return;
    }
    isl_set *elems = isl_map_range(m);
    for (size_t j = 0; j < F->arrays.len; j++) {
        Touched *t = &F->arrays.data[j];
        if (t->var == op->var && t->bytes == op->bytes) {
            t->elems = isl_set_union(t->elems, elems);
            return;
        }
    }
    vec_push(&R->c->arena, &F->arrays, ((Touched){op->var, op->bytes, elems}));
}

/* The footprint's bytes: each array's elements counted (an array isl
 * cannot count left out); -1 past 2^60 bytes. */
static int64_t foot_bytes(Run *R)
{
    Foot *F = R->foot;
    const int64_t most = (int64_t)1 << 60;
    int64_t sum = 0;
    for (size_t j = 0; j < F->arrays.len; j++) {
        Touched *t = &F->arrays.data[j];
        t->elems = isl_set_coalesce(t->elems);
        isl_val *v = t->elems ? isl_set_count_val(t->elems) : NULL;
        bool ok = v && isl_val_is_int(v);
        if (!ok)
            foot_left(R, t->var->name_off, "elements isl does not count");
        else if (isl_val_cmp_si(v, most / t->bytes) > 0 || (sum += isl_val_get_num_si(v) *
                                                                   t->bytes) > most)
            sum = -1;
        isl_val_free(v);
        if (sum < 0)
            break;
    }
    for (size_t j = 0; j < F->arrays.len; j++)
        isl_set_free(F->arrays.data[j].elems);
    return sum;
}

/* ---- before the run ---------------------------------------------------------------------------- */

static void add_var(Run *R, Var *v, Slots *slots)
{
    int i = (int)R->vars.len;
    vec_push(&R->c->arena, &R->vars, v);
    vec_push(&R->c->arena, slots, ((Slot){v->name_off, i}));
    for (size_t j = 0; j < v->nrefs; j++)
        vec_push(&R->c->arena, slots, ((Slot){v->refs[j].begin, i}));
}

static const oklc_stats_param *given(const Run *R, const char *name)
{
    for (size_t i = 0; i < R->nparams; i++)
        if (!strcmp(R->params[i].name, name))
            return &R->params[i];
    return NULL;
}

/* Statements and headers whose assignments the run follows. */
static void followed(const Stmt *st, Offsets *out, Arena *a)
{
    if (st->kind == ST_EXPR)
        vec_push(a, out, st->range.begin);
    const Loop *l = st->kind == ST_FOR ? (st->loop ? st->loop : st->plain) : NULL;
    if (l && l->step.end)
        vec_push(a, out, l->step.begin);
    if (l && l->init.end)
        vec_push(a, out, l->init.begin);
    for (size_t i = 0; i < st->nkids; i++)
        followed(st->kids[i], out, a);
}

static void variables(Run *R)
{
    Kernel *k = R->k;
    Arena *a = &R->c->arena;
    Slots slots = {0};
    for (size_t i = 0; i < k->nparams; i++)
        add_var(R, k->params[i], &slots);
    for (size_t i = 0; i < k->nlocals; i++)
        add_var(R, k->locals[i], &slots);
    for (size_t i = 0; i < R->m->nglobals; i++)
        add_var(R, R->m->globals[i], &slots);
    qsort(slots.data, slots.len, sizeof(Slot), slot_order);
    R->slots = slots.data, R->nslots = slots.len;
    size_t n = R->vars.len ? R->vars.len : 1;
    R->val = oklc_arena_alloc(a, n * sizeof *R->val);
    R->clobbered = oklc_arena_alloc(a, n * sizeof *R->clobbered);
    memset(R->clobbered, 0, n * sizeof *R->clobbered);
    for (size_t i = 0; i < R->vars.len; i++) {
        const Var *v = R->vars.data[i];
        const oklc_stats_param *p = v->kind == VAR_PARAM ? given(R, v->name) : NULL;
        bool scalar = v->is_int && !v->type.pointer && !v->type.array && !v->type.reference;
        R->val[i] = p && scalar ? konst(p->value)
                    : v->kind == VAR_PARAM && scalar && i < VAR_COUNTER
                        ? num(oklc_num_var(&R->P, (int)i)) : data();
    }
    /* a variable written where the run does not look holds data */
    Offsets seen = {0};
    followed(k->root, &seen, a);
    for (size_t i = oklc_first_op(R->m, k->body.begin); i < R->m->nops &&
                                                   R->m->ops[i].range.begin < k->body.end; i++) {
        const Op *op = &R->m->ops[i];
        if (op->kind != OP_ASSIGN && op->kind != OP_UPDATE && op->kind != OP_ADDRESS)
            continue;
        int v = var_at(R, op->a.begin);
        bool ok = op->kind != OP_ADDRESS;
        for (size_t j = 0; j < seen.len && ok; j++)
            ok = seen.data[j] != op->range.begin;
        if (v >= 0 && (op->kind == OP_ADDRESS || ok))
            R->clobbered[v] = true;
    }
}

/* The ?:, && and || each operation of the kernel sits in (b or c). */
static void guards(Run *R)
{
    const Model *m = R->m;
    const Kernel *k = R->k;
    Arena *a = &R->c->arena;
    R->info = oklc_arena_alloc(a, (m->nops ? m->nops : 1) * sizeof *R->info);
    R->mem = oklc_op_memory(R->c, m, k);
    for (size_t i = oklc_first_op(m, k->body.begin);
         i < m->nops && m->ops[i].range.begin < k->body.end; i++) {
        const Op *op = &m->ops[i];
        if (op->kind != OP_COND && op->kind != OP_AND && op->kind != OP_OR)
            continue;
        for (size_t j = i + 1; j < m->nops && m->ops[j].range.begin < op->range.end; j++) {
            uint32_t at = m->ops[j].range.begin;
            if (oklc_in_range(op->b, at) || oklc_in_range(op->c, at)) {
                OpInfo *in = &R->info[j];
                in->guards = oklc_arena_append(a, in->guards, in->nguards, sizeof(size_t));
                in->guards[in->nguards++] = i;
            }
        }
    }
}

/* ---- the report ------------------------------------------------------------------------------ */

static const char *text_of(Run *R, Num n)
{
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_num_print(n, &b, var_name, R);
    return b.data;
}

/* "value": v, written exactly (a double holds integers to 2^53 only) */
static void put_value(cJSON *o, int64_t v)
{
    if (v < ((int64_t)1 << 53) && v > -((int64_t)1 << 53)) {
        cJSON_AddNumberToObject(o, "value", (double)v);
        return;
    }
    char t[24];
    snprintf(t, sizeof t, "%lld", (long long)v);
    cJSON_AddRawToObject(o, "value", t);
}

/* "[N, M] -> { [] -> (n) }": n as isl reads it, in the parameters */
static const char *isl_constant(Run *R, const char *params, Num n)
{
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    oklc_buf_printf(&b, "%s -> { [] -> (", params);
    isl_text(R, n, &b);
    oklc_buf_printf(&b, ") }");
    return b.data;
}

static void put(Run *R, cJSON *obj, const char *key, Num n)
{
    int64_t k;
    cJSON *o = cJSON_AddObjectToObject(obj, key);
    if (oklc_num_const(n, &k))
        put_value(o, k);
    else
        cJSON_AddStringToObject(o, "formula", text_of(R, n));
    const char *params = o && n.p ? isl_params(R) : NULL;
    if (params)               /* the same as isl reads it: for tools (and the tests) */
        cJSON_AddStringToObject(o, "isl", isl_constant(R, params, n));
}

/* Count k: the numbers' part and what isl counted (NULL: none did). */
static isl_pw_qpolynomial *pw_of(Run *R, const Counts *c, int k)
{
    bool any = false;
    for (int i = 0; i < NCAT; i++)
        any |= R->pw[i] != NULL;
    const char *params = any ? isl_params(R) : NULL;
    if (!params)
        return NULL;
    isl_pw_qpolynomial *f = isl_pw_qpolynomial_read_from_str(R->isl,
                                                            isl_constant(R, params, c->n[k]));
    return R->pw[k] ? isl_pw_qpolynomial_add(f, isl_pw_qpolynomial_copy(R->pw[k])) : f;
}

/* A count with isl's part: a number, or "formula where ...; 0 otherwise". */
static void put_pw(Run *R, cJSON *obj, const char *key, isl_pw_qpolynomial *f)
{
    Buf b;
    oklc_buf_init(&b, &R->c->arena);
    const char *text = f && oklc_sum_print(f, &b) ? b.data : "(more pieces than are printed)";
    char *end;
    long long v = strtoll(text, &end, 10);
    cJSON *o = cJSON_AddObjectToObject(obj, key);
    if (*text && !*end) {
        put_value(o, v);
    } else {
        cJSON_AddStringToObject(o, "formula", text);
        char *t = f ? isl_pw_qpolynomial_to_str(f) : NULL;
        if (t)
            cJSON_AddStringToObject(o, "isl", t);
        free(t);
    }
    isl_pw_qpolynomial_free(f);
}

/* count k of c (with weight w, for the sums) */
static void put_cat(Run *R, cJSON *obj, const char *key, const Counts *c, const int *ks,
                    const int64_t *w, int n)
{
    Num sum = {NULL, 0};
    for (int i = 0; i < n; i++)
        sum = oklc_num_add(&R->P, sum, oklc_num_scale(&R->P, c->n[ks[i]], w[i], 1));
    isl_pw_qpolynomial *f = NULL;
    for (int i = 0; i < n && R->isl; i++) {
        isl_pw_qpolynomial *g = pw_of(R, c, ks[i]);
        if (!g)
            continue;
        g = isl_pw_qpolynomial_scale_val(g, isl_val_int_from_si(R->isl, w[i]));
        f = f ? isl_pw_qpolynomial_add(f, g) : g;
    }
    if (f)
        put_pw(R, obj, key, f);
    else
        put(R, obj, key, sum);
}

static Num flops_of(Run *R, const Counts *c)
{
    Num f = {NULL, 0};
    for (int p = 0; p < NPREC; p++)
        for (int k = 0; k < NARITH; k++)
            f = oklc_num_add(&R->P, f, oklc_num_scale(&R->P, c->n[p * NARITH + k],
                                                      k == OP_FMA - OP_ADD ? 2 : 1, 1));
    return f;
}

/* line:col as the user sees it */
static Loc where(Run *R, uint32_t off)
{
    Loc l = oklc_norm_loc(R->c->norm, off);
    l.line = (uint32_t)oklc_presumed_line(R->c, l);
    return l;
}

/* The footprint of a kernel (with --machine): its bytes (-1: not
 * counted), and the first access left out, if any. */
typedef struct Footprint {
    int64_t     bytes;
    const char *left;         /* "why at line:col" */
} Footprint;

/* The roofline: the time at least (each distinct element moved once, the
 * flops at the peak), and the time with every access from memory. */
static void roofline(cJSON *kj, const oklc_stats_options *o, const Footprint *fp, int64_t flops,
                     int64_t bytes, bool upper)
{
    double tm = fp->bytes > 0 ? (double)fp->bytes / o->bandwidth : 0;
    double tf = (double)flops / o->peak_flops, tb = upper ? 0 : tf;
    cJSON *rj = cJSON_AddObjectToObject(kj, "roofline");
    cJSON_AddNumberToObject(rj, "seconds", tm > tb ? tm : tb);
    cJSON_AddNumberToObject(rj, "memory_seconds", tm);
    cJSON_AddNumberToObject(rj, "compute_seconds", tf);
    cJSON_AddStringToObject(rj, "bound", tm >= tb ? "memory" : "compute");
    if (fp->bytes >= 0)
        put_value(cJSON_AddObjectToObject(rj, "footprint_bytes"), fp->bytes);
    if (fp->left)
        cJSON_AddStringToObject(rj, "footprint_left_out", fp->left);
    cJSON_AddNumberToObject(rj, "every_access_seconds", (double)bytes / o->bandwidth);
    /* measured on an H200: stencils and products beat the time with every
     * access from memory (caches), never the footprint's (docs/stats.md) */
    char assumes[256];
    snprintf(assumes, sizeof assumes, "each distinct element of a global array moves between "
             "memory and the chip once, the arrays start in memory and share no element; %s",
             upper ? "the flops are upper bounds: not part of the bound"
                   : "the flops run at the peak");
    cJSON_AddStringToObject(rj, "assumes", assumes);
}

static void kernel_json(Run *R, const Counts *c, cJSON *kj, const oklc_stats_options *o,
                        const Footprint *fp)
{
    Loc loc = where(R, R->k->name_off);
    cJSON_AddStringToObject(kj, "name", R->k->name);
    cJSON_AddNumberToObject(kj, "line", loc.line);
    if (R->fail) {
        Loc at = where(R, R->fail_at);
        cJSON_AddStringToObject(kj, "not_counted", oklc_arena_printf(&R->c->arena,
                                "%s at %u:%u", R->fail, at.line, at.col));
        return;
    }
    if (R->stuck) {
        Loc at = where(R, R->stuck_at);
        cJSON_AddStringToObject(kj, "not_counted", oklc_arena_printf(&R->c->arena,
                                "the statement at %u:%u depends on the values of the "
                                "parameters: give them with --param", at.line, at.col));
        return;
    }
    cJSON_AddBoolToObject(kj, "exact", !R->upper);
    if (R->upper) {
        Loc at = where(R, R->upper_at);
        cJSON_AddStringToObject(kj, "at_most", oklc_arena_printf(&R->c->arena, "%s at %u:%u",
                                R->upper_why, at.line, at.col));
    }
    cJSON *ops = cJSON_AddObjectToObject(kj, "flops");
    int all[NPREC * NARITH];
    int64_t w[NPREC * NARITH], one = 1;
    for (int p = 0; p < NPREC; p++) {
        cJSON *pj = NULL;
        for (int k = 0; k < NARITH; k++) {
            int i = p * NARITH + k;
            all[i] = i, w[i] = k == OP_FMA - OP_ADD ? 2 : 1;
            Num n = c->n[i];
            if (!n.p && !n.k && !R->pw[i])
                continue;
            if (!pj)
                pj = cJSON_AddObjectToObject(ops, prec_name[p]);
            put_cat(R, pj, arith_name[k], c, &i, &one, 1);
        }
    }
    Num flops = flops_of(R, c);
    put_cat(R, kj, "flop_total", c, all, w, NPREC * NARITH);
    for (int i = C_ARITH_END; i < NCAT; i++)
        put_cat(R, kj, cat_key[i - C_ARITH_END], c, &i, &one, 1);
    Num bytes = oklc_num_add(&R->P, c->n[C_GLOAD_BYTES], c->n[C_GSTORE_BYTES]);
    static const int both[2] = {C_GLOAD_BYTES, C_GSTORE_BYTES};
    static const int64_t ones[2] = {1, 1};
    put_cat(R, kj, "global_bytes", c, both, ones, 2);
    for (int i = 0; i < NCAT; i++)
        if (R->pw[i])
            return;           /* formulas: no intensity */
    int64_t f, b, blocks;
    if (oklc_num_const(flops, &f) && oklc_num_const(bytes, &b)) {
        if (b)
            cJSON_AddNumberToObject(kj, "intensity", (double)f / (double)b);
        if (oklc_num_const(c->n[C_BLOCK], &blocks) && blocks)
            cJSON_AddNumberToObject(kj, "barriers_per_block",
                                    (double)c->n[C_BARRIER].k / (double)blocks);
        if (fp)
            roofline(kj, o, fp, f, b, R->upper);
    }
}

static const char *value_text(Arena *a, const cJSON *o)
{
    const cJSON *v = cJSON_GetObjectItem(o, "value");
    if (v && cJSON_IsRaw(v))
        return v->valuestring;
    return v ? oklc_arena_printf(a, "%.0f", v->valuedouble)
             : cJSON_GetObjectItem(o, "formula")->valuestring;
}

/* "  key                 value" of kj's key */
static void line(Buf *b, const char *label, const cJSON *kj, const char *key)
{
    const cJSON *o = cJSON_GetObjectItem(kj, key);
    if (o)
        oklc_buf_printf(b, "  %-20s %s\n", label, value_text(b->arena, o));
}

static double number(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItem(o, key)->valuedouble;
}

static void roofline_text(Buf *b, const cJSON *rj)
{
    const cJSON *fb = cJSON_GetObjectItem(rj, "footprint_bytes");
    const cJSON *left = cJSON_GetObjectItem(rj, "footprint_left_out");
    oklc_buf_printf(b, "  %-20s %s\n", "footprint",
                    fb ? oklc_arena_printf(b->arena, "%s bytes%s", value_text(b->arena, fb),
                                           left ? ", at least" : "")
                       : "not counted");
    if (left)
        oklc_buf_printf(b, "  %-20s %s\n", "  left out", left->valuestring);
    bool upper = strstr(cJSON_GetObjectItem(rj, "assumes")->valuestring, "upper") != NULL;
    oklc_buf_printf(b, "  %-20s %.4g s at least (%s-bound: memory %.4g s, compute %s%.4g s%s)\n",
                    "roofline", number(rj, "seconds"),
                    cJSON_GetObjectItem(rj, "bound")->valuestring, number(rj, "memory_seconds"),
                    upper ? "at most " : "", number(rj, "compute_seconds"),
                    upper ? ", not in the bound" : "");
    oklc_buf_printf(b, "  %-20s %.4g s with every global access from memory\n", "",
                    number(rj, "every_access_seconds"));
}

/* The JSON as text, a kernel a paragraph. */
static void text(Buf *b, const cJSON *root)
{
    const cJSON *kj;
    cJSON_ArrayForEach(kj, cJSON_GetObjectItem(root, "kernels")) {
        oklc_buf_printf(b, "kernel %s (line %d)\n", cJSON_GetObjectItem(kj, "name")->valuestring,
                        cJSON_GetObjectItem(kj, "line")->valueint);
        const cJSON *no = cJSON_GetObjectItem(kj, "not_counted");
        if (no) {
            oklc_buf_printf(b, "  not counted: %s\n\n", no->valuestring);
            continue;
        }
        const cJSON *most = cJSON_GetObjectItem(kj, "at_most");
        if (most)
            oklc_buf_printf(b, "  counts are upper bounds: %s\n", most->valuestring);
        line(b, "blocks", kj, "blocks");
        line(b, "threads", kj, "threads");
        const cJSON *pj;
        cJSON_ArrayForEach(pj, cJSON_GetObjectItem(kj, "flops")) {
            const cJSON *x;
            cJSON_ArrayForEach(x, pj)
                line(b, oklc_arena_printf(b->arena, "%s %s", pj->string, x->string), pj,
                     x->string);
        }
        line(b, "flops (fma = 2)", kj, "flop_total");
        for (int i = C_ARITH_END; i < NCAT; i++) {
            const char *key = cat_key[i - C_ARITH_END];
            if (strcmp(key, "blocks") && strcmp(key, "threads"))
                line(b, key, kj, key);
        }
        line(b, "global_bytes", kj, "global_bytes");
        const cJSON *x = cJSON_GetObjectItem(kj, "intensity");
        if (x)
            oklc_buf_printf(b, "  %-20s %.4g flop/byte\n", "intensity", x->valuedouble);
        x = cJSON_GetObjectItem(kj, "barriers_per_block");
        if (x)
            oklc_buf_printf(b, "  %-20s %.4g\n", "barriers a block", x->valuedouble);
        const cJSON *rj = cJSON_GetObjectItem(kj, "roofline");
        if (rj)
            roofline_text(b, rj);
        oklc_buf_printf(b, "\n");
    }
}

/* Are all of k's integer parameters given (its counts numbers)? */
static bool all_given(const Kernel *k, const oklc_stats_options *o)
{
    for (size_t j = 0; j < k->nparams; j++) {
        const Var *v = k->params[j];
        bool scalar = v->is_int && !v->type.pointer && !v->type.array;
        bool found = false;
        for (size_t p = 0; scalar && p < o->nparams && !found; p++)
            found = !strcmp(o->params[p].name, v->name);
        if (scalar && !found)
            return false;
    }
    return true;
}

static void run_start(Run *R, oklc_ctx *c, Model *m, Kernel *k, const oklc_stats_options *o,
                      bool given)
{
    *R = (Run){.c = c, .m = m, .k = k, .P = {&c->arena, false}, .params = o->params,
               .nparams = o->nparams, .first = true, .budget = given ? 100000000 : 200000,
               .numbers = given};
    variables(R);
    guards(R);
}

static void run_end(Run *R)
{
    for (int k = 0; k < NCAT; k++)
        isl_pw_qpolynomial_free(R->pw[k]);
    for (size_t k = 0; k < R->sums.len; k++)
        isl_pw_qpolynomial_free(R->sums.data[k].sum);
    isl_ctx_free(R->isl);
}

/* Kernel k run once more (every parameter given) for its footprint. */
static Footprint footprint(oklc_ctx *c, Model *m, Kernel *k, const oklc_stats_options *o)
{
    Foot F = {0};
    Run R;
    run_start(&R, c, m, k, o, true);
    R.foot = &F;
    Counts counts = {0};
    stmt(&R, k->root, &counts);
    if (R.fail || R.stuck)    /* what was recorded before holds: the rest left out */
        foot_left(&R, R.fail ? R.fail_at : R.stuck_at,
                  R.fail ? R.fail : "a value the run did not know");
    Footprint fp = {foot_bytes(&R), NULL};
    if (F.left) {
        Loc at = where(&R, F.left_at);
        fp.left = oklc_arena_printf(&c->arena, "%s at %u:%u", F.left, at.line, at.col);
    }
    run_end(&R);
    return fp;
}

bool oklc_stats_report(oklc_ctx *c, Model *m, const oklc_stats_options *o, Buf *out)
{
    cJSON *root = cJSON_CreateObject(), *ks = root ? cJSON_AddArrayToObject(root, "kernels") : NULL;
    bool machine = o->bandwidth > 0 && o->peak_flops > 0;
    for (size_t i = 0; ks && i < m->nkernels; i++) {
        bool given = all_given(m->kernels[i], o);
        Run R;
        run_start(&R, c, m, m->kernels[i], o, given);
        Counts counts = {0};
        stmt(&R, R.k->root, &counts);
        if (R.P.overflow)
            fail(&R, R.k->name_off, "a count past 64 bits");
        cJSON *kj = cJSON_CreateObject();
        if (!kj || !cJSON_AddItemToArray(ks, kj))
            break;
        Footprint fp = {-1, NULL};
        if (machine && given && !R.fail && !R.stuck)
            fp = footprint(c, m, R.k, o);
        kernel_json(&R, &counts, kj, o, machine ? &fp : NULL);
        run_end(&R);
    }
    char *s = root ? (o->json ? cJSON_Print(root) : NULL) : NULL;
    if (!root || (o->json && !s)) {
        cJSON_Delete(root);
        return false;
    }
    if (s)
        oklc_buf_printf(out, "%s\n", s);
    else
        text(out, root);
    cJSON_free(s);
    cJSON_Delete(root);
    return true;
}
