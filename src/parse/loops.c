/*
 * loops.c - for statements in the kernel model: the OKL loop levels of
 * @outer, @inner and @tile, read from the header's tokens (operators are
 * not in libclang 14's API), and iteration counts from Clang's constant
 * evaluation.
 */
#include <ctype.h>
#include <string.h>

#include "walk.h"

static Cmp flip(Cmp c)
{
    switch (c) {
    case CMP_LT: return CMP_GT;
    case CMP_LE: return CMP_GE;
    case CMP_GT: return CMP_LT;
    case CMP_GE: return CMP_LE;
    default: return c;
    }
}

static bool cmp_of(const Token *t, Cmp *out)
{
    if (t->kind != TK_PUNCT)
        return false;
    switch (t->punct) {
    case P_LT: *out = CMP_LT; return true;
    case P_LE: *out = CMP_LE; return true;
    case P_GT: *out = CMP_GT; return true;
    case P_GE: *out = CMP_GE; return true;
    case P_NE: *out = CMP_NE; return true;
    default: return false;
    }
}

const char *oklc_cmp_spelling(Cmp cmp)
{
    static const char *const s[] = {"<", "<=", ">", ">=", "!="};
    return s[cmp];
}

/* One token, or something that needs parentheses to be an operand. */
static const char *operand(Walk *W, const char *s)
{
    bool simple = true;
    for (const char *p = s; *p && simple; p++)
        simple = strchr(" +-*/%<>=&|^?:,!~", *p) == NULL;
    return simple ? s : oklc_arena_printf(&W->c->arena, "(%s)", s);
}

/* An integer constant Clang can compute, under `root`, with extent `r`. */
typedef struct Find {
    Range    r;
    CXCursor found;
    bool     ok;
} Find;

static enum CXChildVisitResult find_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    Find *f = data;
    /* the body after the header: its start says so, not its extent */
    if (oklc_cx_ends_in_body(clang_getCursorKind(cur)) && oklc_cx_begin(cur) > f->r.begin)
        return CXChildVisit_Continue;
    Range r = oklc_cx_range(cur);
    if (r.begin == f->r.begin && r.end == f->r.end) {
        f->found = cur;
        f->ok = true;
        return CXChildVisit_Break;
    }
    if (r.begin <= f->r.begin && r.end >= f->r.end)
        return CXChildVisit_Recurse;
    return CXChildVisit_Continue;
}

/* Does the text mention a template parameter (so Clang cannot evaluate)? */
static bool mentions_tparam(Walk *W, Range r)
{
    for (size_t k = tok_at(W, r.begin); k < tok_at(W, r.end); k++)
        for (size_t i = 0; i < W->ntparams; i++)
            if (oklc_tok_eq(W->toks[k], W->tparams[i]))
                return true;
    return false;
}

static bool evaluate(Walk *W, CXCursor root, Range r, int64_t *out)
{
    if (mentions_tparam(W, r))
        return false;
    Find f = {r, clang_getNullCursor(), false};
    clang_visitChildren(root, find_visit, &f);
    if (!f.ok)
        return false;
    CXEvalResult e = clang_Cursor_Evaluate(f.found);
    if (!e)
        return false;
    bool ok = clang_EvalResult_getKind(e) == CXEval_Int;
    if (ok)
        *out = clang_EvalResult_isUnsignedInt(e) ? (int64_t)clang_EvalResult_getAsUnsigned(e)
                                                 : clang_EvalResult_getAsLongLong(e);
    clang_EvalResult_dispose(e);
    return ok;
}

/* The loop's iteration count: an expression, and a number when Clang can
 * evaluate start, bound and stride. */
static bool single_operand(Walk *W, size_t from, size_t to);

/* hi = lo + rest, token for token (parentheses around hi aside): the
 * range of rest. OKL's tiles written by hand: i from x to x + 16. */
static bool offset_span(Walk *W, Range lo, Range hi, Range *rest)
{
    size_t lb = tok_at(W, lo.begin), le = tok_at(W, lo.end);
    size_t hb = tok_at(W, hi.begin), he = tok_at(W, hi.end);
    if (he > hb + 1 && oklc_tok_is_punct(W->toks[hb], P_LPAREN) && closing(W, hb) == he - 1)
        hb++, he--;
    size_t n = le - lb;
    if (!n || he <= hb + n + 1)
        return false;
    for (size_t i = 0; i < n; i++)
        if (W->toks[lb + i]->len != W->toks[hb + i]->len ||
            memcmp(W->toks[lb + i]->text, W->toks[hb + i]->text, W->toks[lb + i]->len))
            return false;
    if (!oklc_tok_is_punct(W->toks[hb + n], P_PLUS) || !single_operand(W, hb + n + 1, he))
        return false;
    for (size_t k = hb + n + 1; k < he; k++)
        if (W->toks[k]->kind == TK_PUNCT && (W->toks[k]->punct == P_PLUS ||
                                             W->toks[k]->punct == P_MINUS))
            return false;                  /* x + 16 - 1: not one offset */
    *rest = (Range){W->toks[hb + n + 1]->loc.off, tok_end(W->toks[he - 1])};
    return true;
}

/* The iteration count from the operands' text (zero: lo is 0). */
static const char *count_text(Arena *a, Cmp cmp, bool unit, bool zero, const char *lo,
                              const char *hi, const char *st)
{
    bool le = cmp == CMP_LE || cmp == CMP_GE;
    if (unit && zero)
        return le ? oklc_arena_printf(a, "%s + 1", hi) : hi;
    if (unit)
        return oklc_arena_printf(a, le ? "%s - %s + 1" : "%s - %s", hi, lo);
    if (cmp == CMP_NE)
        return oklc_arena_printf(a, "(%s - %s) / %s", hi, lo, st);
    return oklc_arena_printf(a, le ? "(%s - %s + %s) / %s" : "(%s - %s + %s - 1) / %s", hi, lo,
                             st, st);
}

/* for (i = x; i < x + 16; ...): the count is the offset's. */
static const char *offset_count(Arena *a, bool le, bool unit, const char *sp, const char *st)
{
    if (unit)
        return le ? oklc_arena_printf(a, "%s + 1", sp) : sp;
    return oklc_arena_printf(a, le ? "(%s + %s) / %s" : "(%s + %s - 1) / %s", sp, st, st);
}

/* An operand as long long: the launchers' counts do not overflow in int. */
static const char *widen(Arena *a, const char *operand)
{
    return oklc_arena_printf(a, "(long long)%s", operand);
}

static void trip_count(Walk *W, CXCursor fs, Loop *l, Range start, Range bound, Range stride)
{
    int64_t v0, v1, vs = 1;
    bool k0 = evaluate(W, fs, start, &v0), k1 = evaluate(W, fs, bound, &v1);
    bool ks = stride.end ? evaluate(W, fs, stride, &vs) : true;
    if (ks && vs <= 0) {
        l->problem = oklc_arena_printf(&W->c->arena, "the step %s the iterator by %lld, so the "
                                       "loop never ends",
                                       l->down ? "decreases" : "increases", (long long)vs);
        return;
    }
    l->stride_known = ks;
    const char *lo = operand(W, l->down ? l->bound : l->start);
    const char *hi = operand(W, l->down ? l->start : l->bound);
    const char *st = operand(W, l->stride);
    bool unit = !strcmp(l->stride, "1");
    Arena *a = &W->c->arena;
    bool zero = !strcmp(lo, "0");
    l->trips = count_text(a, l->cmp, unit, zero, lo, hi, st);
    l->trips_wide = count_text(a, l->cmp, unit, zero, widen(a, lo), widen(a, hi), st);
    Range rest;
    int64_t vr;
    if (!(k0 && k1) && offset_span(W, l->down ? bound : start, l->down ? start : bound, &rest)) {
        /* for (i = x; i < x + 16; ...): the count is the offset's */
        const char *sp = oklc_walk_text_of(W, tok_at(W, rest.begin), tok_at(W, rest.end));
        sp = operand(W, sp);
        bool le = l->cmp == CMP_LE || l->cmp == CMP_GE;
        l->trips = offset_count(a, le, unit, sp, st);
        l->trips_wide = offset_count(a, le, unit, widen(a, sp), st);
        if (evaluate(W, fs, rest, &vr)) {
            v0 = 0, v1 = vr;
            k0 = k1 = true;
            if (l->down)
                v0 = vr, v1 = 0;
        }
    }
    if (k0 && k1 && ks) {
        int64_t span = l->down ? v0 - v1 : v1 - v0, tr;
        switch (l->cmp) {
        case CMP_LT: case CMP_GT: tr = (span + vs - 1) / vs; break;
        case CMP_LE: case CMP_GE: tr = (span + vs) / vs; break;
        default: tr = span / vs; break;
        }
        l->trips_known = true;
        l->ntrips = tr < 0 ? 0 : tr;
    }
    l->analyzed = true;
}

/* The step clause: ++i i++ --i i-- i += s  i -= s  i = i + s  i = s + i
 * i = i - s. Sets l->stride (and *stride to its range) and l->down. */
static bool read_step(Walk *W, Loop *l, size_t s, size_t e, Range *stride)
{
    const Token *t0 = s < e ? W->toks[s] : NULL, *t1 = s + 1 < e ? W->toks[s + 1] : NULL;
    bool it0 = t0 && oklc_tok_eq(t0, l->iter), it1 = t1 && oklc_tok_eq(t1, l->iter);
    *stride = (Range){0, 0};
    if (e - s == 2 && ((oklc_tok_is_punct(t0, P_INC) && it1) ||
                       (it0 && oklc_tok_is_punct(t1, P_INC)))) {
        l->stride = "1";
        return true;
    }
    if (e - s == 2 && ((oklc_tok_is_punct(t0, P_DEC) && it1) ||
                       (it0 && oklc_tok_is_punct(t1, P_DEC)))) {
        l->stride = "1";
        l->down = true;
        return true;
    }
    if (e - s >= 3 && it0 && (oklc_tok_is_punct(t1, P_PLUSEQ) || oklc_tok_is_punct(t1, P_MINUSEQ))) {
        l->stride = oklc_walk_text_of(W, s + 2, e);
        *stride = tok_range(W, s + 2, e);
        l->down = oklc_tok_is_punct(t1, P_MINUSEQ);
        return true;
    }
    if (e - s >= 5 && it0 && oklc_tok_is_punct(t1, P_ASSIGN)) {
        const Token *x = W->toks[s + 2], *op = W->toks[s + 3];
        if (oklc_tok_eq(x, l->iter) && (oklc_tok_is_punct(op, P_PLUS) || oklc_tok_is_punct(op, P_MINUS))) {
            l->stride = oklc_walk_text_of(W, s + 4, e);
            *stride = tok_range(W, s + 4, e);
            l->down = oklc_tok_is_punct(op, P_MINUS);
            return true;
        }
        if (oklc_tok_eq(W->toks[e - 1], l->iter) && oklc_tok_is_punct(W->toks[e - 2], P_PLUS)) {
            l->stride = oklc_walk_text_of(W, s + 2, e - 2);
            *stride = tok_range(W, s + 2, e - 2);
            return true;
        }
    }
    return false;
}

/* Is [from, to) one operand of a comparison: no comparison, logical
 * operator, ?: or comma outside brackets (templates aside)? */
static bool single_operand(Walk *W, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        const Token *t = W->toks[k];
        if (t->kind != TK_PUNCT)
            continue;
        if (t->punct == P_LPAREN || t->punct == P_LBRACKET || t->punct == P_LBRACE) {
            k = closing(W, k);
            continue;
        }
        switch (t->punct) {
        case P_ANDAND: case P_OROR: case P_QUESTION: case P_COMMA: case P_EQ: case P_NE:
        case P_LE: case P_GE:
            return false;
        default:
            break;
        }
    }
    return true;
}

/* for (T i = start; i CMP bound; step): the iterator, start and bound,
 * and the clauses' tokens in cl (open + 1, the two semicolons, close).
 * When a form is not one OKL can map, l->problem says why. */
static bool read_header(Walk *W, Loop *l, size_t open, size_t cl[4], Range *start, Range *bound)
{
    size_t close = closing(W, open);
    cl[0] = open + 1, cl[1] = cl[2] = 0, cl[3] = close;
    int n = 0;
    for (size_t k = open + 1; k < close; k++) {
        const Token *t = W->toks[k];
        if (t->kind == TK_PUNCT && (t->punct == P_LPAREN || t->punct == P_LBRACKET ||
                                    t->punct == P_LBRACE))
            k = closing(W, k);
        else if (oklc_tok_is_punct(t, P_SEMI) && n < 2)
            cl[++n] = k;
    }
    l->header = (Range){W->toks[open]->loc.off, tok_end(W->toks[close])};
    if (n != 2) {
        l->problem = "a range-based for loop has no iteration count OKL can compute";
        return false;
    }
    l->init = tok_range(W, cl[0], cl[1]);
    l->cond = tok_range(W, cl[1] + 1, cl[2]);
    l->step = tok_range(W, cl[2] + 1, cl[3]);

    /* init: T i = start, T i{start}, T i(start) */
    size_t eq = cl[0], init_end = cl[1];
    while (eq < cl[1] && !oklc_tok_is_punct(W->toks[eq], P_ASSIGN))
        eq++;
    if (eq >= cl[1] && cl[1] > cl[0] + 2) {
        const Token *last = W->toks[cl[1] - 1];
        if (oklc_tok_is_punct(last, P_RBRACE) || oklc_tok_is_punct(last, P_RPAREN)) {
            size_t o = cl[1] - 1;
            while (o > cl[0] && closing(W, o - 1) != cl[1] - 1)
                o--;
            o--;
            if (o > cl[0] && W->toks[o - 1]->kind == TK_IDENT) {
                eq = o;               /* the brace or parenthesis stands for '=' */
                init_end = cl[1] - 1;
            }
        }
    }
    if (cl[1] == cl[0] && cl[2] == cl[1] + 1 && cl[3] == cl[2] + 1) {
        l->problem = "the loop has no header; write it in full: "
                     "for (int i = start; i < bound; ++i)";
        return false;
    }
    if (eq >= cl[1] || eq == cl[0] || W->toks[eq - 1]->kind != TK_IDENT || eq == cl[0] + 1) {
        l->problem = "the loop must declare its iterator in its first clause: "
                     "for (int i = start; ...)";
        return false;
    }
    for (size_t k = eq; k < cl[1]; k++)
        if (oklc_tok_is_punct(W->toks[k], P_COMMA)) {
            l->problem = "the loop must declare one iterator only";
            return false;
        }
    const Token *it = W->toks[eq - 1];
    l->iter = oklc_arena_strndup(&W->c->arena, it->text, it->len);
    l->iter_off = it->loc.off;
    *start = l->start_at = tok_range(W, eq + 1, init_end);
    l->start = oklc_walk_text_of(W, eq + 1, init_end);

    /* cond: i CMP bound, or bound CMP i */
    size_t a = cl[1] + 1, b = cl[2];
    if (b - a >= 3 && oklc_tok_eq(W->toks[a], l->iter) && cmp_of(W->toks[a + 1], &l->cmp)) {
        l->bound = oklc_walk_text_of(W, a + 2, b);
        *bound = tok_range(W, a + 2, b);
    } else if (b - a >= 3 && oklc_tok_eq(W->toks[b - 1], l->iter) &&
               cmp_of(W->toks[b - 2], &l->cmp)) {
        l->cmp = flip(l->cmp);
        l->bound = oklc_walk_text_of(W, a, b - 2);
        *bound = tok_range(W, a, b - 2);
    } else {
        *bound = (Range){0, 0};
    }
    if (bound->end && !single_operand(W, tok_at(W, bound->begin), tok_at(W, bound->end)))
        *bound = (Range){0, 0};       /* i < N && i < M: not one bound */
    l->bound_at = *bound;
    if (!bound->end) {
        l->problem = oklc_arena_printf(&W->c->arena, "the condition must compare the iterator "
                                       "with a bound: %s < N, %s <= N, %s > N, %s >= N or "
                                       "%s != N",
                                       l->iter, l->iter, l->iter, l->iter, l->iter);
        return false;
    }
    return true;
}

/* The header of an OKL loop (see read_header); the step must be one OKL
 * can map, and the iteration count follows. */
static void analyze_header(Walk *W, CXCursor fs, Loop *l, size_t open)
{
    size_t cl[4];
    Range start, bound;
    if (!read_header(W, l, open, cl, &start, &bound))
        return;
    Range stride;
    if (!read_step(W, l, cl[2] + 1, cl[3], &stride)) {
        l->problem = oklc_arena_printf(&W->c->arena, "the step must be ++%s, %s++, --%s, %s--, "
                                       "%s += s, %s -= s or %s = %s + s",
                                       l->iter, l->iter, l->iter, l->iter, l->iter, l->iter,
                                       l->iter, l->iter);
        return;
    }
    bool up_cmp = l->cmp == CMP_LT || l->cmp == CMP_LE;
    if (l->cmp != CMP_NE && up_cmp == l->down) {
        l->problem = oklc_arena_printf(&W->c->arena, "the condition '%s %s %s' needs %s iterator, "
                                       "but the step %s it",
                                       l->iter, oklc_cmp_spelling(l->cmp), l->bound,
                                       up_cmp ? "an increasing" : "a decreasing",
                                       l->down ? "decreases" : "increases");
        return;
    }
    trip_count(W, fs, l, start, bound, stride);
}

/* The most iterations plain_trips counts: enough for any loop worth
 * unrolling whole. */
#define PLAIN_TRIPS_MAX 64

/* One step of a plain loop's iterator (the operator of `x op= by`); false
 * when the value would leave the range that is safe to compute in. */
static bool plain_step(int64_t *v, int op, int64_t by)
{
    const int64_t limit = (int64_t)1 << 40;
    switch (op) {
    case '+': *v += by; break;
    case '-': *v -= by; break;
    case '*': *v *= by; break;
    case '/': *v /= by; break;
    case '<':
        if (*v < 0 || *v > limit >> by)
            return false;
        *v <<= by;
        break;
    default:
        if (*v < 0)
            return false;
        *v >>= by;
        break;
    }
    return *v >= -limit && *v <= limit;
}

/* A for loop without OKL attributes: its iteration count, when its header
 * is `T x = start; x CMP bound; step` with a step ++x, x++, --x, x--,
 * x += s, x -= s, x *= s, x /= s, x <<= s or x >>= s, and Clang computes
 * start, bound and s (`for (int alive = 128; alive > 0; alive /= 2)`: 8);
 * -1 if not, or above PLAIN_TRIPS_MAX. A CPU backend unrolls such a loop
 * around @inner loops. */
static int32_t plain_trips(Walk *W, CXCursor fs)
{
    Loop l = {0};
    size_t cl[4];
    Range start, bound;
    if (!read_header(W, &l, tok_at(W, oklc_cx_begin(fs)) + 1, cl, &start, &bound))
        return -1;
    size_t s = cl[2] + 1, e = cl[3];
    const Token *t0 = s < e ? W->toks[s] : NULL, *t1 = s + 1 < e ? W->toks[s + 1] : NULL;
    if (!t1)
        return -1;
    int op = 0;
    int64_t by = 1, v, end;
    if (e - s == 2 && (oklc_tok_eq(t0, l.iter) || oklc_tok_eq(t1, l.iter))) {
        const Token *o = oklc_tok_eq(t0, l.iter) ? t1 : t0;
        op = oklc_tok_is_punct(o, P_INC) ? '+' : oklc_tok_is_punct(o, P_DEC) ? '-' : 0;
    } else if (e - s >= 3 && oklc_tok_eq(t0, l.iter) && t1->kind == TK_PUNCT) {
        switch (t1->punct) {
        case P_PLUSEQ: op = '+'; break;
        case P_MINUSEQ: op = '-'; break;
        case P_STAREQ: op = '*'; break;
        case P_SLASHEQ: op = '/'; break;
        case P_SHLEQ: op = '<'; break;
        case P_SHREQ: op = '>'; break;
        default: break;
        }
        if (op && !evaluate(W, fs, tok_range(W, s + 2, e), &by))
            return -1;
    }
    if (!op || !evaluate(W, fs, start, &v) || !evaluate(W, fs, bound, &end) ||
        (op == '/' && !by) || ((op == '<' || op == '>') && (by < 0 || by > 40)) ||
        by < -((int64_t)1 << 20) || by > (int64_t)1 << 20)
        return -1;
    for (int32_t n = 0; n <= PLAIN_TRIPS_MAX; n++) {
        bool more = l.cmp == CMP_LT ? v < end : l.cmp == CMP_LE ? v <= end
                  : l.cmp == CMP_GT ? v > end : l.cmp == CMP_GE ? v >= end : v != end;
        if (!more)
            return n;
        if (!plain_step(&v, op, by))
            return -1;
    }
    return -1;
}

/* A loop level of a for statement, hooked into the tree of the kernel. */
static Loop *new_loop(Walk *W, const Loop *proto, LoopKind kind, Attr *attr, Loop *parent)
{
    Loop *l = oklc_arena_alloc(&W->c->arena, sizeof *l);
    *l = *proto;
    l->kind = kind;
    l->attr = attr;
    l->kernel = W->kernel;
    l->parent = parent;
    l->level = parent ? parent->level + 1 : 0;
    l->kids = NULL;
    l->nkids = 0;
    vec_push(&W->c->arena, &W->loops, l);
    if (parent && kind != LOOP_REGULAR) {
        parent->kids = oklc_arena_append(&W->c->arena, parent->kids, parent->nkids,
                                         sizeof(Loop *));
        parent->kids[parent->nkids++] = l;
    }
    return l;
}

/* The kind and the written axis an attribute (@outer(1), @inner) gives. */
static LoopKind level_kind(const Attr *a)
{
    if (!a || (a->id != ATTR_OUTER && a->id != ATTR_INNER))
        return LOOP_REGULAR;
    return a->id == ATTR_OUTER ? LOOP_OUTER : LOOP_INNER;
}

static void set_axis(Loop *l, Attr *a)
{
    if (!a || !a->nargs)
        return;
    uint64_t v;
    bool u;
    const char *err, *t = a->args[0].text;
    l->axis_given = true;
    l->axis_attr = a;
    l->axis = oklc_int_literal(t, strlen(t), &v, &u, &err) && v <= 2 ? (int)v : -1;
}

/* Sorts a for statement's attributes; the ones that cannot be there, or
 * are there twice, are misplaced. */
static Attr *loop_attrs(Walk *W, AttrList *attrs, Loop *proto)
{
    Attr *kind = NULL;
    for (size_t i = 0; i < attrs->len; i++) {
        Attr *a = attrs->data[i], **slot = NULL;
        switch (a->id) {
        case ATTR_OUTER: case ATTR_INNER: case ATTR_TILE:
            if (kind) {
                oklc_walk_misplaced(W, a, kind->id == a->id ? "a loop that has it already"
                                                  : "a loop that has a loop attribute already");
                continue;
            }
            kind = a;
            continue;
        case ATTR_NOBARRIER: slot = &proto->nobarrier; break;
        case ATTR_MAX_INNER_DIMS: slot = &proto->max_inner_dims; break;
        case ATTR_SIMD_LENGTH: slot = &proto->simd_length; break;
        case ATTR_UNROLL: slot = &proto->unroll; break;
        case ATTR_CL_IVDEP: slot = &proto->ivdep; break;
        default:
            oklc_walk_misplaced(W, a, "a for loop");
            continue;
        }
        if (*slot)
            oklc_walk_misplaced(W, a, "a loop that has it already");
        else
            *slot = a;
    }
    proto->attrs = attrs->data;
    proto->nattrs = attrs->len;
    return kind;
}

/* The iterator's type: the VarDecl in the init clause. */
typedef struct IterFind {
    uint32_t off;
    CXCursor decl;
    bool     ok;
} IterFind;

static enum CXChildVisitResult iter_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    IterFind *f = data;
    if (clang_getCursorKind(cur) == CXCursor_VarDecl &&
        oklc_cx_offset(clang_getCursorLocation(cur)) == f->off) {
        f->decl = cur;
        f->ok = true;
        return CXChildVisit_Break;
    }
    return clang_getCursorKind(cur) == CXCursor_DeclStmt ? CXChildVisit_Recurse
                                                         : CXChildVisit_Continue;
}

/* The value of a tile size written as a literal (perhaps negative, perhaps
 * in parentheses); INT64_MIN when it is not one. */
static int64_t literal_value(const char *s)
{
    size_t n = strlen(s);
    while (n >= 2 && s[0] == '(' && s[n - 1] == ')')
        s++, n -= 2;
    bool neg = n && *s == '-';
    if (neg)
        s++, n--;
    while (n && *s == ' ')
        s++, n--;
    uint64_t v;
    bool u;
    const char *err;
    if (!oklc_int_literal(s, n, &v, &u, &err) || v > INT64_MAX)
        return INT64_MIN;
    return neg ? -(int64_t)v : (int64_t)v;
}

/* A tile size is an int: a number written otherwise (1.5, 2.5f, 1e3, a
 * 26-digit one) says why it is not one; expressions are the compiler's. */
static const char *tile_size_error(Walk *W, const char *size, int64_t value)
{
    if (value != INT64_MIN)
        return value > INT32_MAX
                   ? oklc_arena_printf(&W->c->arena, "the tile size %s%s does not fit in an int "
                                       "(at most 2147483647)", size,
                                       literal_value(size) != INT64_MIN ? ""
                                       : oklc_arena_printf(&W->c->arena, " (= %lld)",
                                                           (long long)value))
                   : NULL;
    for (const char *p = size; *p; p++) {
        bool number = isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]));
        bool in_word = p > size && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
                                    p[-1] == '.');
        if (!number || in_word)
            continue;
        size_t n = strspn(p, "0123456789abcdefABCDEFxXpP.'uUlL+-");
        bool hex = n > 1 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
        bool fp = memchr(p, '.', n) || (!hex && (memchr(p, 'e', n) || memchr(p, 'E', n))) ||
                  (hex && (memchr(p, 'p', n) || memchr(p, 'P', n)));
        uint64_t v;
        bool u;
        const char *err;
        size_t len = strspn(p, "0123456789abcdefABCDEFxX'uUlL");
        if (fp || p[n] == 'f' || p[n] == 'F')
            return oklc_arena_printf(&W->c->arena, "the tile size must be an integer: %.*s is "
                                     "a floating-point number", (int)(n + (p[n] == 'f' ||
                                     p[n] == 'F')), p);
        if (!oklc_int_literal(p, len, &v, &u, &err) || v > INT32_MAX)
            return oklc_arena_printf(&W->c->arena, "the tile size %.*s does not fit in an int "
                                     "(at most 2147483647)", (int)len, p);
        p += n - 1;
    }
    return NULL;
}

/* @tile(size, [kind], [kind], [check]): two levels of one statement. The
 * loop over tiles steps size strides at a time; the loop in a tile runs
 * `size` times. */
static Loop *tile_levels(Walk *W, Loop *proto, Attr *tile)
{
    Attr *parts[2] = {NULL, NULL};
    int np = 0;
    bool check = true;
    for (int i = 1; i < tile->nargs; i++) {
        AttrArg *g = &tile->args[i];
        if (g->kind == ARG_ATTR && np < 2)
            parts[np++] = g->attr;
        else if (g->kind == ARG_KEYVAL && !strcmp(g->key, "check"))
            check = strcmp(g->text, "false") != 0;
    }
    const char *size = tile->nargs ? tile->args[0].text : "1";
    int64_t tv = literal_value(size);
    ConstEval st = tv != INT64_MIN ? CONST_VALUE : oklc_const_eval(size, NULL, &tv);
    proto->tile_size = size;
    proto->tile_check = check;
    proto->tile_value = st == CONST_VALUE ? tv : INT64_MIN;
    proto->tile_error = st == CONST_OVERFLOW
                            ? oklc_arena_printf(&W->c->arena, "the tile size %s overflows (or "
                                                "divides by zero) when evaluated", size)
                            : tile_size_error(W, size, proto->tile_value);

    Loop *first = new_loop(W, proto, level_kind(parts[0]), tile, W->loop);
    first->tile_part = 1;
    set_axis(first, parts[0]);
    Loop *last = new_loop(W, proto, level_kind(parts[1]), tile,
                          first->kind != LOOP_REGULAR ? first : W->loop);
    last->tile_part = 2;
    set_axis(last, parts[1]);
    first->tile_other = last;
    last->tile_other = first;
    if (proto->analyzed) {
        Arena *a = &W->c->arena;
        const char *sz = operand(W, size);
        first->stride = !strcmp(proto->stride, "1")
                            ? sz : oklc_arena_printf(a, "%s * %s", sz, operand(W, proto->stride));
        /* (n - 1) / size + 1, not (n + size - 1) / size: no overflow for
         * an n near INT_MAX */
        const char *n = operand(W, proto->trips), *w = operand(W, proto->trips_wide);
        first->trips = oklc_arena_printf(a, "(%s > 0 ? (%s - 1) / %s + 1 : 0)", n, n, sz);
        first->trips_wide = oklc_arena_printf(a, "(%s > 0 ? (%s - 1) / %s + 1 : 0)", w, w, sz);
        first->trips_known = proto->trips_known && tv > 0;
        first->ntrips = first->trips_known ? (proto->ntrips + tv - 1) / tv : 0;
        last->trips = last->trips_wide = size;
        last->trips_known = tv > 0;
        last->ntrips = tv > 0 ? tv : 0;
        first->tile_exact = last->tile_exact = first->trips_known && proto->ntrips % tv == 0;
    }
    return last;
}

/* A for statement with OKL attributes: one Loop level, or two for @tile.
 * Returns the innermost level. */
static Loop *attributed_for(Walk *W, CXCursor fs, AttrList *attrs)
{
    Loop proto = {0};
    proto.stmt = oklc_walk_with_semicolon(W, oklc_cx_range(fs));
    proto.tile_value = INT64_MIN;
    Attr *kind = loop_attrs(W, attrs, &proto);
    proto.in_statement = !W->loop && W->ctl.len > 0;
    analyze_header(W, fs, &proto, tok_at(W, proto.stmt.begin) + 1);
    if (proto.iter) {
        IterFind f = {proto.iter_off, clang_getNullCursor(), false};
        clang_visitChildren(fs, iter_visit, &f);
        if (f.ok)
            proto.iter_type =
                oklc_cx_string(W->c, clang_getTypeSpelling(clang_getCursorType(f.decl)));
    }
    if (kind && kind->id == ATTR_TILE)
        return tile_levels(W, &proto, kind);
    Loop *l = new_loop(W, &proto, level_kind(kind), kind, W->loop);
    set_axis(l, kind);
    return l;
}

/* Entering a for statement: its loop levels, if it has OKL attributes,
 * hold the body; the frame keeps what oklc_walk_for_end restores. */
void oklc_walk_for(Walk *W, CXCursor cur, AttrList *attrs, Frame *f)
{
    f->for_loop = true;
    f->saved_loop = W->loop;
    f->saved_header = W->for_header;
    if (attrs->len && W->kernel && !W->in_lambda) {
        Loop *l = attributed_for(W, cur, attrs);
        for (Loop *p = l; p && p->stmt.begin == l->stmt.begin; p = p->parent)
            p->node = W->stmt;
        if (l->tile_other)
            l->tile_other->node = W->stmt;
        /* the body is inside the innermost attributed level */
        for (Loop *p = l; p && p->stmt.begin == l->stmt.begin; p = p->parent)
            if (p->kind != LOOP_REGULAR) {
                W->loop = p;
                break;
            }
    } else {
        for (size_t i = 0; i < attrs->len; i++)
            oklc_walk_misplaced(W, attrs->data[i], !W->kernel ? "a loop outside a kernel"
                                                   : W->in_lambda ? "a loop inside a lambda"
                                                                  : "a for loop");
    }
    uint32_t begin = oklc_cx_begin(cur);
    size_t k = tok_at(W, begin) + 1;
    Range header = {0, 0};
    if (k < W->ntoks && oklc_tok_is_punct(W->toks[k], P_LPAREN))
        header = (Range){tok_end(W->toks[k]), W->toks[closing(W, k)]->loc.off};
    W->for_header = header;
    bool attributed = W->loop != f->saved_loop;
    if (!attributed && W->kernel && !W->in_lambda && W->stmt && W->stmt->kind == ST_FOR &&
        W->stmt->range.begin == begin) {
        W->stmt->trips = plain_trips(W, cur);
        if (header.end) {
            Loop *pl = oklc_arena_alloc(&W->c->arena, sizeof *pl);
            pl->kind = LOOP_REGULAR;
            pl->stmt = W->stmt->range;
            pl->tile_value = INT64_MIN;
            pl->kernel = W->kernel;
            analyze_header(W, cur, pl, k);
            W->stmt->plain = pl;
        }
    }
    /* a regular loop's header decides which threads iterate */
    oklc_walk_push_ctl(W, CTL_LOOP, cur, attributed ? (Range){0, 0} : header,
                       attributed ? W->loop : NULL);
    f->ctl = true;
}

/* Leaving it, its body walked (before its statement node is left). */
void oklc_walk_for_end(Walk *W, const Frame *f)
{
    if (W->stmt && W->stmt->kind == ST_FOR && W->loop != f->saved_loop)
        W->stmt->loop = W->loop;
    W->loop = f->saved_loop;
    W->for_header = f->saved_header;
}
